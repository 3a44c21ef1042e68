/**
 * The probe end to end through the real `@anthropic-ai/sdk` and `openai` clients, against a fake
 * provider on 127.0.0.1 that actually reads the pages (with glyphfold's decoder) and answers with
 * planted mistakes, so recall must come out exactly as the mistakes dictate.
 *
 * The shared test/helpers/provider-server.ts has no token-counting endpoints, which the probe needs
 * (billed image tokens = input − question alone), so this file runs its own small fake.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode as decodePng } from 'fast-png';
import { CELL_NAMES, MAX_SCALE, decode } from '../../src/render/index.js';
import { resolveProfile, bestPageShape } from '../../src/providers/index.js';
import { anthropicClient, openaiClient, runProbe } from '../../src/probe/index.js';
import { runProbeCli } from '../../src/cli/probe-run.js';
import { captureIo } from '../helpers/cli.js';

interface Recorded {
  path: string;
  body: Record<string, unknown>;
}

/** What the fake reader saw on the pages: label → value, by the carrier patterns document.ts uses. */
function readNeedles(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/(N\d{2}) said: "([^"]+)"/g)) found.set(m[1]!, m[2]!);
  for (const m of text.matchAll(/Reference (N\d{2}) is (\S+?)\.(?=\s|$)/g)) found.set(m[1]!, m[2]!);
  for (const m of text.matchAll(/const (N\d{2}) = '?([^';]+)'?;/g)) found.set(m[1]!, m[2]!);
  return found;
}

/** Planted mistakes: codes exact, numbers one digit off (partial), identifiers unread, quotes exact. */
function answer(found: Map<string, string>): string {
  return [...found]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, value]) => {
      if (/^\d+\.\d{2}$/.test(value))
        return `${label}: ${value.slice(0, -1)}${value.endsWith('1') ? '2' : '1'}`;
      if (/_[a-z0-9]{2}$/.test(value)) return `${label}: ?`;
      return `${label}: ${value}`;
    })
    .join('\n');
}

const fromBase64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
const textTokens = (s: string) => Math.ceil(s.length / 4) + 5;
const IMAGE_TOKENS = 1000;

let server: Server;
let url = '';
const requests: Recorded[] = [];

/** Reads the pages as a model would have to: without being told the cell, trying each until needles appear. */
function readPages(pngs: Uint8Array[]): Map<string, string> {
  let best = new Map<string, string>();
  for (const cell of CELL_NAMES) {
    for (let scale = 1; scale <= MAX_SCALE; scale++) {
      try {
        const found = readNeedles(decode(pngs, { cell, scale }));
        if (found.size > best.size) best = found;
      } catch {
        // not this cell: the decoder rejects glyphs it does not know
      }
    }
  }
  return best;
}

function pngsOf(path: string, body: Record<string, unknown>): Uint8Array[] {
  const messages = (path.includes('responses') ? body.input : body.messages) as { content: unknown }[];
  const content = messages[0]!.content as Record<string, unknown>[];
  return content.flatMap((part) => {
    if (part.type === 'image') return [fromBase64((part.source as { data: string }).data)];
    if (part.type === 'input_image')
      return [fromBase64(String(part.image_url).replace(/^data:image\/png;base64,/, ''))];
    return [];
  });
}

function promptText(input: unknown): string {
  if (typeof input === 'string') return input;
  const messages = input as { content: unknown }[];
  const c = messages[0]!.content;
  return typeof c === 'string' ? c : '';
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const body = JSON.parse(raw) as Record<string, unknown>;
      requests.push({ path, body });
      const send = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (path === '/v1/messages/count_tokens')
        return send({ input_tokens: textTokens(promptText(body.messages)) });
      if (path === '/v1/responses/input_tokens') {
        return send({ object: 'response.input_tokens', input_tokens: textTokens(promptText(body.input)) });
      }
      const pngs = pngsOf(path, body);
      const reply = answer(readPages(pngs));
      const parts = (
        (path.includes('responses') ? body.input : body.messages) as {
          content: { type: string; text?: string }[];
        }[]
      )[0]!.content;
      const question = parts.find((p) => p.type === 'text' || p.type === 'input_text')!.text!;
      const input = pngs.length * IMAGE_TOKENS + textTokens(question);
      if (path === '/v1/messages') {
        return send({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [{ type: 'text', text: reply }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: input, output_tokens: 50 },
        });
      }
      if (path === '/v1/responses') {
        return send({
          id: 'resp_1',
          object: 'response',
          created_at: 0,
          status: 'completed',
          model: body.model,
          output: [
            {
              type: 'message',
              id: 'msg_1',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: reply, annotations: [] }],
            },
          ],
          usage: {
            input_tokens: input,
            output_tokens: 50,
            total_tokens: input + 50,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        });
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const io = () => captureIo();

const EXPECTED_RECALL = (perKind: number) => ({
  code: { exact: perKind, partial: 0, none: 0, total: perKind },
  number: { exact: 0, partial: perKind, none: 0, total: perKind },
  identifier: { exact: 0, partial: 0, none: perKind, total: perKind },
  quote: { exact: perKind, partial: 0, none: 0, total: perKind },
});

describe('probe through the real SDK clients', () => {
  it('Claude: sends every page unresized in the profile shape, grades the answers, compares tokens', async () => {
    requests.length = 0;
    const resolved = resolveProfile('claude-haiku-4-5');
    const shape = bestPageShape(resolved.profile, { cell: '4x6', scale: 1, imagesInRequest: 2 });
    const result = await runProbe({
      resolved,
      client: anthropicClient({ apiKey: 'test', baseURL: url }),
      pages: 2,
      seed: 5,
    });
    const call = requests.find((r) => r.path === '/v1/messages')!;
    const pngs = pngsOf(call.path, call.body);
    expect(pngs).toHaveLength(2);
    for (const png of pngs) {
      const image = decodePng(png);
      expect([image.width, image.height]).toEqual([shape.width, shape.height]);
    }
    expect(call.body.model).toBe('claude-haiku-4-5');
    expect(result.recall.byKind).toEqual(EXPECTED_RECALL(4));
    expect(result.recall.overall).toEqual({ exact: 8, partial: 4, none: 4, total: 16 });
    // Question tokens are counted alone, so the billed image share is exactly what the server charged.
    expect(result.tokens.imageBilled).toBe(2 * IMAGE_TOKENS);
    expect(result.tokens.imageEstimate).toBe(2 * shape.tokens);
    // The text comparison counts the same document as text: question alone, then document + question.
    const counts = requests
      .filter((r) => r.path === '/v1/messages/count_tokens')
      .map((r) => promptText(r.body.messages));
    expect(counts).toHaveLength(2);
    expect(counts[1]!.endsWith(counts[0]!)).toBe(true);
    expect(counts[1]!.length).toBe(result.chars + 2 + counts[0]!.length);
    for (const n of result.needles) {
      expect(counts[1]).toMatch(
        new RegExp(`${n.label}( is | = '?| said: ")${n.value.replace(/[.]/g, '\\.')}`),
      );
    }
    expect(result.tokens.contentText).toBe(textTokens(counts[1]!) - textTokens(counts[0]!));
    expect(result.tokens.question).toBe(textTokens(counts[0]!));
  });

  it('refuses more pages than one request may carry, before rendering or sending', async () => {
    requests.length = 0;
    const resolved = resolveProfile('claude-haiku-4-5');
    await expect(
      runProbe({ resolved, client: anthropicClient({ apiKey: 'test', baseURL: url }), pages: 101 }),
    ).rejects.toThrow(/imagesInRequest 101 exceeds claude-haiku-4-5's limit of 100 images per request/);
    expect(requests).toHaveLength(0);
  });

  it('OpenAI: each image carries the detail the profile asks for', async () => {
    requests.length = 0;
    const resolved = resolveProfile('gpt-4o');
    const shape = bestPageShape(resolved.profile, { cell: '5x8', scale: 1, imagesInRequest: 1 });
    expect(shape.detail).toBe('high');
    const result = await runProbe({
      resolved,
      client: openaiClient({ apiKey: 'test', baseURL: `${url}/v1` }),
      cell: '5x8',
      pages: 1,
    });
    const call = requests.find((r) => r.path === '/v1/responses')!;
    const images = (call.body.input as { content: Record<string, unknown>[] }[])[0]!.content.filter(
      (p) => p.type === 'input_image',
    );
    expect(images).toHaveLength(1);
    expect(images[0]!.detail).toBe('high');
    const image = decodePng(pngsOf(call.path, call.body)[0]!);
    expect([image.width, image.height]).toEqual([shape.width, shape.height]);
    expect(result.recall.byKind).toEqual(EXPECTED_RECALL(2));
    expect(result.tokens.imageBilled).toBe(IMAGE_TOKENS);
    expect(result.shape.detail).toBe('high');
  });
});

describe('glyphfold probe (command)', () => {
  it('without a key, says how to provide one and exits 2', async () => {
    const cli = io();
    const code = await runProbeCli(['--model', 'claude-haiku-4-5'], cli, {});
    expect(code).toBe(2);
    expect(cli.err()).toContain('set ANTHROPIC_API_KEY');
    const openai = io();
    expect(await runProbeCli(['--model', 'gpt-5.1'], openai, {})).toBe(2);
    expect(openai.err()).toContain('OPENAI_API_KEY');
  });

  it('refuses gateway routes without --base-url, naming the route', async () => {
    await expect(
      runProbeCli(['--model', 'us.anthropic.claude-haiku-4-5-20251001-v1:0'], io(), {
        ANTHROPIC_API_KEY: 'x',
      }),
    ).rejects.toThrow(/not implemented: probing through the bedrock route/);
  });

  it('--out writes the JSON results relative to the working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'glyphfold-probe-'));
    try {
      const cli = { ...io(), cwd: dir };
      const code = await runProbeCli(
        ['--model', 'claude-haiku-4-5', '--base-url', url, '--needles', '4', '--out', 'r.json'],
        cli,
        { ANTHROPIC_API_KEY: 't' },
      );
      expect(code).toBe(0);
      const [result] = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8')) as { needles: unknown[] }[];
      expect(result!.needles).toHaveLength(4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses Gemini explicitly', async () => {
    await expect(runProbeCli(['--model', 'gemini-2.5-pro'], io(), { GEMINI_API_KEY: 'x' })).rejects.toThrow(
      /not implemented: the probe does not support Gemini yet/,
    );
  });

  it('--shapes --json runs every shape and prints results; the table form names each shape', async () => {
    const cli = io();
    const code = await runProbeCli(
      ['--model', 'claude-haiku-4-5', '--shapes', '--json', '--base-url', url],
      cli,
      {
        ANTHROPIC_API_KEY: 'test',
      },
    );
    expect(code).toBe(0);
    const results = JSON.parse(cli.out()) as { cell: string; scale: number; recall: { byKind: unknown } }[];
    expect(results.map((r) => `${r.cell}@${r.scale}`)).toEqual([
      '4x6@1',
      '5x8@1',
      '6x10@1',
      '4x6@2',
      '5x8@2',
    ]);
    for (const r of results) expect(r.recall.byKind).toEqual(EXPECTED_RECALL(2));
  });

  it('prints a table by default', async () => {
    const cli = io();
    const code = await runProbeCli(['--model', 'claude-haiku-4-5', '--base-url', url], cli, {
      ANTHROPIC_API_KEY: 't',
    });
    expect(code).toBe(0);
    expect(cli.out()).toMatch(/cell\s+scale\s+page/);
    expect(cli.out()).toMatch(/4x6\s+1\s+\d+x\d+/);
    expect(cli.out()).toContain('2/0/0'); // codes: 2 exact
  });
});

describe.skipIf(!process.env.ANTHROPIC_API_KEY)('live: Anthropic', () => {
  it('probes one 4x6 page of claude-haiku-4-5', { timeout: 120_000 }, async () => {
    const cli = io();
    const code = await runProbeCli(['--model', 'claude-haiku-4-5', '--json'], cli, process.env);
    expect(code).toBe(0);
    const [result] = JSON.parse(cli.out()) as {
      recall: { overall: { total: number } };
      tokens: { input: number };
    }[];
    expect(result!.recall.overall.total).toBe(8);
    expect(result!.tokens.input).toBeGreaterThan(0);
    console.log(cli.out());
  });
});

describe.skipIf(!process.env.OPENAI_API_KEY)('live: OpenAI', () => {
  it('probes one 4x6 page of gpt-5.1', { timeout: 120_000 }, async () => {
    const cli = io();
    const code = await runProbeCli(['--model', 'gpt-5.1', '--json'], cli, process.env);
    expect(code).toBe(0);
    const [result] = JSON.parse(cli.out()) as { recall: { overall: { total: number } } }[];
    expect(result!.recall.overall.total).toBe(8);
    console.log(cli.out());
  });
});
