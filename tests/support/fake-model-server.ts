/**
 * An OpenAI-compatible model server on loopback, standing in for what an operator would plug into
 * the assistant (Ollama, vLLM, a hosted API), which cannot run here. The shared test fleet's
 * assistant is configured with it (fleet.ts), so the suites see the real provider path: by default
 * it fails (500), so suggestions fall back to retrieval; a suite may make it answer, answer nonsense
 * or hang, and must put it back (reset()).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ModelBehaviour =
  | { kind: 'fail' }
  | { kind: 'hang' }
  | { kind: 'malformed' }
  /** Answers `reply`, citing every ticket the prompt gave it. */
  | { kind: 'reply'; reply: string };

export interface FakeModelServer {
  /** The API base (AI_OPENAI_BASE_URL). */
  baseUrl: string;
  /** The prompts (user messages) it was sent, oldest first. */
  prompts: string[];
  behave(behaviour: ModelBehaviour): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  let behaviour: ModelBehaviour = { kind: 'fail' };
  const prompts: string[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const prompt = (JSON.parse(body) as { messages?: { content?: string }[] }).messages?.[1]?.content ?? '';
      prompts.push(prompt);
      const complete = (content: string) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
      };
      switch (behaviour.kind) {
        case 'fail':
          response.writeHead(500).end('model unavailable');
          return;
        case 'hang':
          hanging.add(response);
          return;
        case 'malformed':
          complete('I think the answer is probably yes.');
          return;
        case 'reply': {
          const cited = [...prompt.matchAll(/Ticket (\d+):/g)].map((match) => Number(match[1]));
          complete(JSON.stringify({ reply: behaviour.reply, used_source_ids: cited }));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    prompts,
    behave: (next) => {
      behaviour = next;
    },
    reset: () => {
      behaviour = { kind: 'fail' };
      for (const response of hanging) response.destroy();
      hanging.clear();
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
