// Public surface of @paperclip-evals/policy: the evaluate-protocol producer, zone evaluator and consumer.
export const POLICY_PROTOCOL_VERSION = 1;
