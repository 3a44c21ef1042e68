/**
 * `glyphfold probe --transcribe`: a live model as a blind legibility reader. The real Anthropic and
 * OpenAI SDKs talk to a local provider that reads each page with glyphfold's own decoder (as a perfect
 * reader would) and answers with one planted misreading; the kit is then scored by the bench's scorer.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKit, type KitKey } from '../../bench/legibility/kit.js';
import { scoreKit } from '../../bench/legibility/score.js';
import { runProbeCli } from '../../src/cli/probe-run.js';
import { captureIo } from '../helpers/cli.js';
import { unfence } from '../../src/probe/transcribe.js';
import { decode } from '../../src/render/decode.js';
import {
  startProviderServer,
  type ProviderServer,
  type RecordedRequest,
} from '../helpers/provider-server.js';

const VARIANTS = ['6x10', '5x8+r1+flow'];
let server: ProviderServer;
let dir: string;
let key: KitKey;

function imageOf(r: RecordedRequest): Uint8Array {
  const content = (r.provider === 'anthropic' ? r.body.messages : r.body.input) as {
    content: Record<string, unknown>[];
  }[];
  for (const part of content[0]!.content) {
    if (part.type === 'image') return Buffer.from((part.source as { data: string }).data, 'base64');
    if (part.type === 'input_image') return Buffer.from(String(part.image_url).split(',')[1]!, 'base64');
  }
  throw new Error('no image in the request');
}

/** Reads the page with the decoder, trying each kit variant; plants one misreading (first 0 → O). */
function read(r: RecordedRequest): string {
  for (const variant of VARIANTS) {
    try {
      const text = decode([imageOf(r)], { variant });
      return '```\n' + text.replace('0', 'O') + '\n```';
    } catch {
      // not this variant
    }
  }
  throw new Error('page matches no kit variant');
}

const io = (cwd: string) => captureIo(cwd);

beforeAll(async () => {
  server = await startProviderServer({ reply: (r) => ({ text: read(r), outputTokens: 700 }) });
  dir = mkdtempSync(join(tmpdir(), 'glyphfold-transcribe-'));
  key = await makeKit({ variants: VARIANTS, readers: 2, seed: 3, out: join(dir, 'kit') });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('glyphfold probe --transcribe', () => {
  it('sends each image with the kit instructions only, writes <name>.txt, and the kit scores', async () => {
    const folder = join(dir, 'kit', 'reader-1');
    const cli = io(dir);
    const code = await runProbeCli(
      ['--model', 'claude-haiku-4-5', '--base-url', server.anthropicBaseURL, '--transcribe', 'kit/reader-1'],
      cli,
      { ANTHROPIC_API_KEY: 't' },
    );
    expect(code).toBe(0);
    expect(cli.out()).toMatch(/transcribed 2 image\(s\) .* 1400 output tokens/);
    const calls = server.requests.filter((r) => r.provider === 'anthropic');
    expect(calls).toHaveLength(2); // one request per image, no counting calls
    const instructions = readFileSync(join(folder, 'INSTRUCTIONS.md'), 'utf8');
    for (const c of calls) {
      const text = JSON.stringify(c.body);
      expect(text).toContain(JSON.stringify(instructions).slice(1, 60));
      // Nothing of the source reaches the model: no text of the kit's sources is in the request.
      for (const t of key.texts) expect(text).not.toContain(t.text.split('\n')[0]);
    }
    const names = readdirSync(folder).filter((f) => f.endsWith('.txt'));
    expect(names).toHaveLength(2);
    for (const n of names) expect(readFileSync(join(folder, n), 'utf8')).not.toContain('```');
    const results = scoreKit(join(dir, 'kit'), { model: 'test', how: 'api', date: '2026-11-30' }, [1]);
    for (const variant of VARIANTS) {
      const a = results.aggregates.byVariant[variant]!;
      expect(a.distance).toBe(1); // the planted misreading, nothing else
    }
  });

  it('resumes: existing transcriptions are kept unless --force; OpenAI pages go at high detail', async () => {
    const folder = join(dir, 'kit', 'reader-2');
    const first = readdirSync(folder)
      .find((f) => f.endsWith('.png'))!
      .replace('.png', '.txt');
    writeFileSync(join(folder, first), 'kept\n');
    const before = server.requests.length;
    const code = await runProbeCli(
      ['--model', 'gpt-5.1', '--base-url', server.openaiBaseURL, '--transcribe', join(folder)],
      io(dir),
      { OPENAI_API_KEY: 't' },
    );
    expect(code).toBe(0);
    const calls = server.requests.slice(before);
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(calls[0]!.body)).toContain('"detail":"high"');
    expect(readFileSync(join(folder, first), 'utf8')).toBe('kept\n');
  });

  it('names a folder that is not a reader folder', async () => {
    await expect(
      runProbeCli(
        ['--model', 'claude-haiku-4-5', '--base-url', server.anthropicBaseURL, '--transcribe', 'nowhere'],
        io(dir),
        {
          ANTHROPIC_API_KEY: 't',
        },
      ),
    ).rejects.toThrow(/INSTRUCTIONS\.md not found \(expected a reader folder of a legibility kit\)/);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('unfence removes one wrapping code fence only', () => {
    expect(unfence('```text\na\n```')).toBe('a');
    expect(unfence('a ``` b')).toBe('a ``` b');
  });
});
