/**
 * A minimal provider stand-in on 127.0.0.1 for tests that go through the real SDK clients. Answers
 * Anthropic `/v1/messages` and OpenAI `/v1/chat/completions` with what `respond` returns, and records
 * every request body. (views' test/helpers/provider-server.ts supersedes this once merged.)
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  path: string;
  body: Record<string, unknown>;
}

export type Responder = (req: Recorded, index: number) => { status?: number; body: unknown };

export interface TestServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startServer(respond: Responder): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const rec: Recorded = {
        path: req.url ?? '',
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      };
      requests.push(rec);
      let out: { status?: number; body: unknown };
      try {
        out = respond(rec, requests.length - 1);
      } catch (err) {
        out = { status: 500, body: { error: { type: 'test_error', message: String(err) } } };
      }
      res.writeHead(out.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out.body));
    });
  });
  // The SDK keeps its socket; a client that computes longer than Node's 5 s idle limit between two
  // requests would find it closed (ECONNRESET, and the tests run with maxRetries: 0).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/** An Anthropic Messages response carrying `text`. */
export function anthropicText(text: string, model = 'claude-test') {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 10 },
  };
}

/** An OpenAI chat completion carrying `text`. */
export function openaiText(text: string, model = 'gpt-test') {
  return {
    id: 'chatcmpl_test',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

/** The text of the last user message of a recorded Anthropic or OpenAI request. */
export function lastUserText(rec: Recorded): string {
  const messages = rec.body['messages'] as { role: string; content: unknown }[];
  const last = messages[messages.length - 1]!;
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[]).map((b) => b.text ?? '').join('');
}
