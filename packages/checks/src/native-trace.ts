// Converts a paperclip-runner/native-execution/v1 attempt into a trace the checks engine evaluates:
// one tool_call step per semantic tool call (in call order) whose result carries the outcome, and,
// for a denied call, the denial — so a denial is visible to trace and content assertions alike.
import type {
  NativeExecution,
  PrpEvent,
  SemanticToolDenial,
  SemanticToolResult,
} from '@paperclip-evals/contract';

import type { Step, Trace, TraceMetadata } from './trace.js';

const MICROS_PER_UNIT = 1_000_000;

export function toTrace(attempt: NativeExecution): Trace {
  const { identity, semanticTools, usage, terminal } = attempt;
  const eventsById = new Map<string, PrpEvent>(attempt.events.map((event) => [event.sourceEventId, event]));
  const resultsByCall = new Map<string, SemanticToolResult>(
    semanticTools.results.map((result) => [result.callId, result]),
  );
  const denialsByCall = new Map<string, SemanticToolDenial>(
    semanticTools.denials.map((denial) => [denial.callId, denial]),
  );

  const steps: Step[] = semanticTools.calls.map((call) => {
    const result = resultsByCall.get(call.callId);
    const denial = denialsByCall.get(call.callId);
    const reported = result === undefined ? undefined : semanticToolPayload(eventsById.get(result.eventId));
    return {
      type: 'tool_call',
      name: call.operationId,
      args: { call_id: call.callId, event_id: call.eventId },
      ...(result === undefined
        ? {}
        : {
            result: {
              outcome: result.outcome,
              event_id: result.eventId,
              ...(typeof reported?.code === 'string' ? { code: reported.code } : {}),
              ...(denial === undefined
                ? {}
                : {
                    denial: {
                      code: denial.code,
                      authorization_boundary: denial.authorizationBoundary,
                      retryable: denial.retryable,
                    },
                  }),
            },
          }),
      metadata: { call_id: call.callId },
    };
  });

  const summary = attempt.events.find((event) => event.eventType === 'run.result.proposed')?.payload.summary;
  const metadata: TraceMetadata = {
    total_tokens: usage.totalTokens,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    latency_ms: usage.durationMs,
    // A cost in another currency, or none reported, stays unknown rather than becoming 0.
    ...(usage.cost?.currency === 'USD' ? { cost_usd: usage.cost.amountMicros / MICROS_PER_UNIT } : {}),
  };
  return {
    schema_version: 1,
    trace_id: [identity.runId, identity.caseId, identity.configId, identity.attemptId].join('/'),
    agent_id: identity.configId,
    input: {
      run_id: identity.runId,
      case_id: identity.caseId,
      config_id: identity.configId,
      attempt_id: identity.attemptId,
    },
    steps,
    output: {
      ...(typeof summary === 'string' ? { message: summary } : {}),
      run_terminal_state: terminal.runTerminalState,
      turn_terminal_state: terminal.turnTerminalState,
      work_disposition: terminal.reportedWorkDisposition,
      ...(attempt.failure === null
        ? {}
        : { failure: { classification: attempt.failure.classification, code: attempt.failure.code } }),
    },
    metadata,
  };
}

function semanticToolPayload(event: PrpEvent | undefined): Record<string, unknown> | undefined {
  const payload = event?.payload.semantic_tool;
  return typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : undefined;
}
