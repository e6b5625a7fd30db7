// A real HTTP server on 127.0.0.1 playing an OpenAI-compatible provider, scripted per test: each
// request to a path takes the next scripted reply (a status and JSON body, or `hang` to never
// answer). Requests are recorded so tests can count calls and read what was sent.
import { createServer } from 'node:http';

import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export type ScriptedReply = { status: number; body: unknown } | 'hang';

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export class FakeProvider {
  readonly requests: RecordedRequest[] = [];
  readonly #script = new Map<string, ScriptedReply[]>();
  readonly #hanging: ServerResponse[] = [];
  readonly #server: Server = createServer((request, response) => {
    void this.handle(request, response);
  });
  #baseUrl = '';

  /** The provider's base URL, e.g. http://127.0.0.1:PORT/v1. */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  static async start(): Promise<FakeProvider> {
    const provider = new FakeProvider();
    await new Promise<void>((resolve) => provider.#server.listen(0, '127.0.0.1', resolve));
    const address = provider.#server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    provider.#baseUrl = `http://127.0.0.1:${address.port}/v1`;
    return provider;
  }

  /** Queues replies for a path ('/chat/completions' or '/embeddings'); an empty queue answers 500. */
  script(path: string, ...replies: ScriptedReply[]): void {
    this.#script.set(path, [...(this.#script.get(path) ?? []), ...replies]);
  }

  /** Forgets recorded requests and unused scripted replies. */
  reset(): void {
    this.requests.length = 0;
    this.#script.clear();
  }

  async close(): Promise<void> {
    for (const response of this.#hanging) response.destroy();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const path = (request.url ?? '').replace(/^\/v1/, '');
    this.requests.push({
      path,
      authorization: request.headers.authorization,
      body: JSON.parse(text) as Record<string, unknown>,
    });
    const reply = this.#script.get(path)?.shift() ?? { status: 500, body: { error: 'nothing scripted' } };
    if (reply === 'hang') {
      this.#hanging.push(response);
      return;
    }
    response.writeHead(reply.status, { 'content-type': 'application/json' });
    response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  }
}

/** A chat completion whose message content is `content`. */
export function chatReply(
  content: string,
  usage = { prompt_tokens: 1000, completion_tokens: 100 },
): ScriptedReply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      model: 'judge-model',
      choices: [{ index: 0, message: { role: 'assistant', content } }],
      usage,
    },
  };
}

export function embeddingReply(
  vectors: number[][],
  usage = { prompt_tokens: 20, total_tokens: 20 },
): ScriptedReply {
  return { status: 200, body: { data: vectors.map((embedding, index) => ({ index, embedding })), usage } };
}
