// Check negotiation-fails-closed: a deliberately incompatible consumer (PRP 99..99) is refused with
// prp_version_no_overlap.
import { isContractError, negotiateCompatibility } from '@paperclip-evals/contract';

import { incompatibleConsumerRequirements } from '../consumer-requirements.js';
import { fail } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const negotiationFailsClosed: QualificationCheckDefinition = {
  id: 'negotiation-fails-closed',
  needs: ['negotiation'],
  run: (_input, values) => {
    const { request, consumer } = values.need('negotiation');
    try {
      negotiateCompatibility({ ...request, consumer: incompatibleConsumerRequirements(consumer) });
      return fail('the negotiator accepted a consumer that speaks only PRP 99', [
        {
          code: 'negotiation_did_not_fail_closed',
          message: 'negotiating with a consumer PRP range of 99..99 succeeded; the negotiator must refuse it',
          component: 'prp',
          expected: 'paperclip_runner_eval_incompatible with prp_version_no_overlap',
          received: 'a receipt',
        },
      ]);
    } catch (error) {
      if (!isContractError(error)) throw error;
      const codes = error.issues.map((issue) => issue.code);
      if (error.code === 'paperclip_runner_eval_incompatible' && codes.includes('prp_version_no_overlap')) {
        return {
          status: 'pass',
          detail: 'a consumer speaking only PRP 99 is refused with prp_version_no_overlap',
        };
      }
      return fail('the negotiator refused PRP 99..99 for the wrong reason', [
        {
          code: 'negotiation_wrong_refusal',
          message: `negotiating with PRP 99..99 failed with ${error.code} (${codes.join(', ')}), not prp_version_no_overlap`,
          component: 'prp',
          expected: 'prp_version_no_overlap',
          received: codes,
        },
      ]);
    }
  },
};
