// The one coded error of the qualification package. Qualification reports a release's failures as
// record entries and its inputs' as ContractError codes; a QualificationError is qualification's
// own fault: a table of checks that is not well formed (a duplicate id, an unknown need, a cycle).
import { CodedError } from '@paperclip-evals/contract';

export type QualificationErrorCode =
  /** The table of checks is not well formed; the message names the check and the rule (a bug, exit 70). */
  'paperclip_qualification_check_table_invalid';

export class QualificationError extends CodedError<QualificationErrorCode> {
  override readonly name = 'QualificationError';
}
