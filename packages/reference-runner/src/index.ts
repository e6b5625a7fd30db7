// Public surface of @paperclipai/paperclip-runner: PRP, runner, semantic-tool and control-plane
// runtime contracts. No test double is reachable from here (see ./testing).
export {
  PRP_EVENT_SCHEMA,
  PRP_PROTOCOL_NAME,
  PRP_RUN_RESULT_SCHEMA,
  PRP_TERMINAL_SCHEMA,
  validatePrpEvent,
  validatePrpTerminal,
} from './prp.js';
export type {
  PrpEvent,
  PrpPriority,
  PrpSourceKind,
  PrpTerminal,
  PrpValidationError,
  PrpValidationResult,
  ReportedWorkDisposition,
  RunTerminalState,
  TurnTerminalState,
} from './prp.js';
export { HARNESS_DRIVER_CONTRACT_VERSION } from './runner-contracts.js';
export type {
  HarnessConfigValidation,
  HarnessDriver,
  HarnessDriverDescriptor,
  NativeSession,
  NativeSessionCapabilities,
  NativeSessionSnapshot,
  NativeSessionSummary,
  NativeUsage,
  OpenNativeSessionRequest,
  ResumeNativeSessionRequest,
  SemanticToolCallRecord,
  SemanticToolIndex,
  SemanticToolResultRecord,
  TranscriptAccounting,
  TurnInput,
  TurnOutcome,
} from './runner-contracts.js';
export {
  AUTHORIZATION_BOUNDARIES,
  SEMANTIC_TOOL_ENVELOPE_SCHEMA,
  SEMANTIC_TOOL_OUTCOMES,
  isSemanticToolOutcome,
} from './semantic-tools.js';
export type {
  AuthorizationBoundary,
  SemanticToolContent,
  SemanticToolCorrelation,
  SemanticToolDenial,
  SemanticToolEnvelope,
  SemanticToolInputEnvelope,
  SemanticToolOutcome,
  SemanticToolPhase,
  SemanticToolReference,
  SemanticToolResultEnvelope,
} from './semantic-tools.js';
export type { GovernedToolDecision, GovernedToolRequest, RunnerControlPlane } from './control-plane.js';
export { PaperclipRunnerError, isPaperclipRunnerError } from './errors.js';
export type { PaperclipRunnerErrorCode, PaperclipRunnerIssue } from './errors.js';
