// Every model call the engine makes goes through here: the batch and session budgets are checked
// before each HTTP attempt, transient failures are retried a bounded number of times, and usage is
// counted — calls, tokens, USD (retries separately), and calls to models without a price.
import { setTimeout as delay } from 'node:timers/promises';

import { isChecksError } from './errors.js';
import { providerFailureOf } from './provider.js';

import type {
  ModelPrice,
  ModelProvider,
  ProviderConfig,
  ProviderReply,
  SessionBudget,
  TokenUsage,
} from './provider.js';

/** Attest-initiated model usage (never the agent's own cost recorded in the trace). */
export interface ModelUsage {
  model_calls: number;
  judge_calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cost_usd: number;
  /** The part of cost_usd spent on retry attempts. */
  retry_cost_usd: number;
  /** Calls to a model with no price: their cost is unknown, so cost_usd is incomplete. */
  unpriced_calls: number;
  /** Calls not made because a budget was spent. */
  budget_refused: number;
}

export function emptyUsage(): ModelUsage {
  return {
    model_calls: 0,
    judge_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_tokens: 0,
    cost_usd: 0,
    retry_cost_usd: 0,
    unpriced_calls: 0,
    budget_refused: 0,
  };
}

export interface BatchBudget {
  readonly max_judge_calls?: number;
  readonly max_cost_usd?: number;
}

export type CallKind = 'judge' | 'embedding' | 'generate';

export type CallOutcome<T> =
  | {
      readonly ok: true;
      readonly value: T;
      readonly costUsd: number;
      readonly priced: boolean;
      readonly attempts: number;
    }
  | {
      readonly ok: false;
      readonly reason: 'provider_auth' | 'provider_unavailable' | 'budget_exhausted';
      readonly explanation: string;
      readonly costUsd: number;
    };

/** USD of one reply, or undefined when the model has no price. */
export function priceOf(price: ModelPrice | undefined, usage: TokenUsage): number | undefined {
  if (price === undefined) return undefined;
  const cached = Math.min(usage.cached_tokens, usage.input_tokens);
  const cachedRate = price.cached_input_usd_per_mtok ?? price.input_usd_per_mtok;
  return (
    ((usage.input_tokens - cached) * price.input_usd_per_mtok +
      cached * cachedRate +
      usage.output_tokens * price.output_usd_per_mtok) /
    1_000_000
  );
}

type GatewaySettings = Pick<ProviderConfig, 'maxRetries' | 'retryDelayMs' | 'prices'>;

/** One per engine session: holds the provider, the session budget and the session's usage. */
export class ModelGateway {
  readonly sessionUsage = emptyUsage();

  constructor(
    readonly provider: ModelProvider,
    private readonly settings: GatewaySettings,
    private readonly sessionBudget: SessionBudget = {},
  ) {}

  /** A call counter for one batch (or one generate_user_message), under its own budget too. */
  forBatch(budget: BatchBudget = {}): BatchCalls {
    return new BatchCalls(this.provider, this.settings, [
      { usage: emptyUsage(), maxJudgeCalls: budget.max_judge_calls, maxCostUsd: budget.max_cost_usd },
      {
        usage: this.sessionUsage,
        maxJudgeCalls: this.sessionBudget.maxJudgeCalls,
        maxCostUsd: this.sessionBudget.maxCostUsd,
      },
    ]);
  }
}

interface Ledger {
  readonly usage: ModelUsage;
  readonly maxJudgeCalls: number | undefined;
  readonly maxCostUsd: number | undefined;
}

export class BatchCalls {
  constructor(
    readonly provider: ModelProvider,
    private readonly settings: GatewaySettings,
    /** The batch's ledger first, then the session's: every call is counted in both. */
    private readonly ledgers: readonly [Ledger, Ledger],
  ) {}

  get usage(): ModelUsage {
    return this.ledgers[0].usage;
  }

  async call<T>(
    kind: CallKind,
    model: string,
    run: (signal: AbortSignal) => Promise<ProviderReply<T>>,
    signal: AbortSignal,
  ): Promise<CallOutcome<T>> {
    const price = this.settings.prices[model];
    for (let attempt = 0; ; attempt++) {
      const refusal = this.refusal(kind, price);
      if (refusal !== undefined) {
        for (const { usage } of this.ledgers) usage.budget_refused++;
        return { ok: false, reason: 'budget_exhausted', explanation: refusal, costUsd: 0 };
      }
      for (const { usage } of this.ledgers) {
        usage.model_calls++;
        if (kind === 'judge') usage.judge_calls++;
      }
      try {
        const reply = await run(signal);
        const cost = priceOf(price, reply.usage);
        for (const { usage } of this.ledgers) {
          usage.input_tokens += reply.usage.input_tokens;
          usage.output_tokens += reply.usage.output_tokens;
          usage.cached_tokens += reply.usage.cached_tokens;
          if (cost === undefined) usage.unpriced_calls++;
          else {
            usage.cost_usd += cost;
            if (attempt > 0) usage.retry_cost_usd += cost;
          }
        }
        return {
          ok: true,
          value: reply.value,
          costUsd: cost ?? 0,
          priced: cost !== undefined,
          attempts: attempt + 1,
        };
      } catch (error) {
        if (!isChecksError(error)) throw error;
        const failure = providerFailureOf(error.code);
        if (failure === undefined) throw error;
        if (failure === 'auth')
          return { ok: false, reason: 'provider_auth', explanation: error.message, costUsd: 0 };
        if (failure === 'rejected' || attempt >= this.settings.maxRetries) {
          const tries = attempt + 1;
          return {
            ok: false,
            reason: 'provider_unavailable',
            explanation: `${error.message} (${tries} attempt${tries === 1 ? '' : 's'})`,
            costUsd: 0,
          };
        }
        await delay(this.settings.retryDelayMs * 2 ** attempt, undefined, { signal });
      }
    }
  }

  /** Why the next call may not be made, if a budget forbids it. */
  private refusal(kind: CallKind, price: ModelPrice | undefined): string | undefined {
    for (const [index, ledger] of this.ledgers.entries()) {
      const scope = index === 0 ? 'batch' : 'session';
      if (
        kind === 'judge' &&
        ledger.maxJudgeCalls !== undefined &&
        ledger.usage.judge_calls >= ledger.maxJudgeCalls
      ) {
        return `${scope} budget of ${ledger.maxJudgeCalls} judge calls is spent`;
      }
      if (ledger.maxCostUsd !== undefined) {
        if (price === undefined) return `${scope} cost budget cannot be enforced: the model has no price`;
        if (ledger.usage.cost_usd >= ledger.maxCostUsd)
          return `${scope} budget of ${ledger.maxCostUsd} USD is spent`;
      }
    }
    return undefined;
  }
}
