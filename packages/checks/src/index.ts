// Public surface of @paperclip-evals/checks: the checks engine (trace model, assertions, JSON-RPC server and client).
export const CHECKS_PROTOCOL_VERSION = 1;
