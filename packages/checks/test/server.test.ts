// The protocol layer in-process, for the failures a real engine process cannot be made to show on
// demand: a drift history store that is down (3001), a bug inside a method (-32603); and session
// and parameter rules checked without a process.
import { describe, expect, it } from 'vitest';

import { EngineServer } from '../src/engine-server.ts';
import { ChecksError } from '../src/errors.ts';
import { ModelGateway } from '../src/model-gateway.ts';

import type { DriftHistory } from '../src/drift.ts';
import type { ModelProvider } from '../src/provider.ts';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { sdk_name: 't', sdk_version: '1', protocol_version: 1 },
});
const QUERY = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'query_drift', params: { assertion_id: 'a' } });

async function queryWith(
  history: DriftHistory,
): Promise<{ id: unknown; error?: { code: number; data: { error_type: string } } }> {
  const logged: string[] = [];
  const server = new EngineServer({ history, log: (_level, message) => logged.push(message) });
  await server.handleLine(INITIALIZE);
  return JSON.parse((await server.handleLine(QUERY)) ?? 'null') as {
    id: unknown;
    error?: { code: number; data: { error_type: string } };
  };
}

describe('EngineServer', () => {
  it('answers 3001 when the drift history store is unavailable', async () => {
    const down: DriftHistory = {
      append: () => Promise.reject(new ChecksError('drift_history_unavailable', 'store offline')),
      runs: () => Promise.reject(new ChecksError('drift_history_unavailable', 'store offline')),
    };
    expect(await queryWith(down)).toMatchObject({
      id: 2,
      error: { code: 3001, data: { error_type: 'ENGINE_ERROR' } },
    });
  });

  it('answers -32603 (not a hang, not a crash) when a method fails unexpectedly', async () => {
    const broken: DriftHistory = {
      append: () => Promise.resolve(),
      runs: () => Promise.reject(new TypeError('undefined is not a function')),
    };
    expect(await queryWith(broken)).toMatchObject({
      id: 2,
      error: { code: -32603, data: { error_type: 'INTERNAL_ERROR' } },
    });
  });

  it('answers 3003 to any request after shutdown', async () => {
    const server = new EngineServer();
    await server.handleLine(INITIALIZE);
    await server.handleLine(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'shutdown', params: {} }));
    expect(JSON.parse((await server.handleLine(QUERY)) ?? 'null')).toMatchObject({
      id: 2,
      error: { code: 3003 },
    });
    expect(server.state).toBe('shut_down');
  });

  it('answers 1002 to generate_user_message with fault injection, before any model call', async () => {
    const calls: unknown[] = [];
    const provider: ModelProvider = {
      chat: (call) => {
        calls.push(call);
        return Promise.resolve({
          value: 'hi',
          usage: { input_tokens: 1, output_tokens: 1, cached_tokens: 0 },
        });
      },
      embed: () => Promise.reject(new Error('unused')),
    };
    const gateway = new ModelGateway(provider, { maxRetries: 0, retryDelayMs: 0, prices: {} });
    const server = new EngineServer({ models: { gateway, judgeModel: 'judge' } });
    await server.handleLine(INITIALIZE);
    const persona = { name: 'pat', system_prompt: 'You are a customer.' };
    const request = (id: number, extra: object): string =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'generate_user_message',
        params: { persona, conversation_history: [], ...extra },
      });
    expect(
      JSON.parse((await server.handleLine(request(3, { fault_config: { error_rate: 0.5 } }))) ?? 'null'),
    ).toMatchObject({
      error: { code: 1002 },
    });
    expect(calls).toHaveLength(0);
    expect(JSON.parse((await server.handleLine(request(4, {}))) ?? 'null')).toMatchObject({
      result: { message: 'hi' },
    });
    expect(calls).toHaveLength(1);
  });

  it('offers layers 5–6 and generate_user_message (simulation) only when a model may be called', async () => {
    const provider: ModelProvider = {
      chat: () => Promise.reject(new Error('unused')),
      embed: () => Promise.reject(new Error('unused')),
    };
    const models = {
      gateway: new ModelGateway(provider, { maxRetries: 0, retryDelayMs: 0, prices: {} }),
      judgeModel: 'judge',
    };
    const capabilities = async (simulation: boolean): Promise<unknown> => {
      const server = new EngineServer({ models, simulation });
      const reply = JSON.parse((await server.handleLine(INITIALIZE)) ?? 'null') as {
        result: { capabilities: string[] };
      };
      return reply.result.capabilities;
    };
    expect(await capabilities(false)).toEqual(expect.arrayContaining(['layers_5_6', 'simulation']));
    const simulated = await capabilities(true);
    expect(simulated).not.toContain('layers_5_6');
    expect(simulated).not.toContain('simulation');
  });
});
