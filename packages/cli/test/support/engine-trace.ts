// Test support: the trace and checks the engine conformance tests send, in-process and spawned.
export const TRACE = {
  schema_version: 1,
  trace_id: 'trc_conformance',
  agent_id: 'support-agent',
  input: { user_message: 'refund ORD-1' },
  steps: [
    { type: 'tool_call', name: 'lookup_order', args: { order_id: 'ORD-1' }, result: { status: 'delivered' } },
    {
      type: 'tool_call',
      name: 'process_refund',
      args: { order_id: 'ORD-1' },
      result: { refund_id: 'RFD-001' },
    },
  ],
  output: { message: 'Your refund RFD-001 is on its way.' },
  metadata: { cost_usd: 0.004, total_tokens: 900, latency_ms: 1200 },
};
export const COST_CHECK = {
  assertion_id: 'cost',
  type: 'constraint',
  spec: { field: 'metadata.cost_usd', operator: 'lte', value: 0.01 },
};
export const JUDGE_CHECK = {
  assertion_id: 'judge',
  type: 'llm_judge',
  spec: { rubric: 'helpfulness', threshold: 0.7 },
};
