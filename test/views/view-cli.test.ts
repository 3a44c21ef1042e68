import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WIRE_PROVIDERS } from '../../src/views/index.js';
import { VALIDATORS } from '../helpers/wire-shapes.js';
import { runCli } from '../helpers/cli.js';

const run = (argv: string[], cwd = process.cwd()) => runCli(argv, { cwd });

const FIXTURES = [
  'anthropic.json',
  'claude-code.jsonl',
  'codex.jsonl',
  'glyphfold.jsonl',
  'openai-chat.json',
];

describe('glyphfold view', () => {
  it.each(FIXTURES)('prints a body every provider accepts for the imported %s', async (fixture) => {
    for (const provider of WIRE_PROVIDERS) {
      const { code, out, err } = await run([
        'view',
        `test/fixtures/transcripts/${fixture}`,
        '--provider',
        provider,
        '--system',
        'Be brief.',
      ]);
      expect(code, err).toBe(0);
      const body = JSON.parse(out) as Record<string, unknown>;
      expect(VALIDATORS[provider](body), `${fixture} → ${provider}`).toEqual([]);
      expect(err).toMatch(/estimate: \d+ input tokens/);
    }
  });

  it('reports repairs on stderr', async () => {
    const { code, err } = await run([
      'view',
      'test/fixtures/transcripts/openai-chat.json',
      '--provider',
      'anthropic',
    ]);
    expect(code).toBe(0);
    expect(err).toMatch(/repair: dropped_orphan_result \S+ \(call call_trimmed000001\)/);
  });

  it('prints the screen view', async () => {
    const { code, out } = await run(['view', 'test/fixtures/transcripts/claude-code.jsonl', '--screen']);
    expect(code).toBe(0);
    expect(out).toMatch(/^You:\n/m);
    expect(out).toMatch(/^Model:\n/m);
    expect(out).toMatch(/· \d+ tool calls?, \d+ tool results? .*hidden ·/);
  });

  it('reads the system prompt from a file and names bad input', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gf-view-'));
    try {
      await writeFile(join(dir, 'sys.txt'), 'SYSTEM FROM FILE');
      const ok = await run(
        [
          'view',
          join(process.cwd(), 'test/fixtures/transcripts/codex.jsonl'),
          '--provider',
          'gemini',
          '--system-file',
          'sys.txt',
        ],
        dir,
      );
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.out).systemInstruction).toEqual({ parts: [{ text: 'SYSTEM FROM FILE' }] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const bad = await run(['view', 'test/fixtures/transcripts/codex.jsonl', '--provider', 'mistral']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(
      "--provider: expected one of anthropic, openai-chat, openai-responses, gemini, found 'mistral'",
    );
    const none = await run(['view', 'test/fixtures/transcripts/codex.jsonl']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('--provider is required');
    const ws = await run(['view', '--workspace', '/tmp/gf-view-no-such-dir', '--provider', 'anthropic']);
    expect(ws.code).toBe(1);
    expect(ws.err).toContain("--workspace: no such directory '/tmp/gf-view-no-such-dir'");
  });

  it('reads a conversation from a workspace (the most recent by default)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gf-view-ws-'));
    try {
      const fixture = join(process.cwd(), 'test/fixtures/transcripts/codex.jsonl');
      const imported = await run(['import', fixture, '--workspace', dir, '--conversation', 'codex-run']);
      expect(imported.code, imported.err).toBe(0);
      const fromFile = await run(['view', fixture, '--provider', 'openai-responses']);
      const named = await run(['view', '--workspace', dir, 'codex-run', '--provider', 'openai-responses']);
      expect(named.code, named.err).toBe(0);
      // The workspace holds the same items as the file: the same request body, up to the order of
      // keys inside tool arguments (the store keeps objects in canonical key order).
      const canon = (out: string): unknown =>
        JSON.parse(out, (k, v: unknown) => (k === 'arguments' && typeof v === 'string' ? JSON.parse(v) : v));
      // The file carried Codex's instructions, which view sends as the system prompt; the import kept
      // them in the history (issue 12), so the workspace's request carries them too.
      const fileBody = canon(fromFile.out) as Record<string, unknown>;
      expect(typeof fileBody.instructions).toBe('string');
      expect(canon(named.out)).toEqual(fileBody);
      const latest = await run(['view', '--workspace', dir, '--screen']);
      expect(latest.code, latest.err).toBe(0);
      expect(latest.out).toContain('You:');
      const missing = await run(['view', '--workspace', dir, 'nope', '--provider', 'gemini']);
      expect(missing.code).toBe(1);
      expect(missing.err).toContain("no conversation 'nope'");
      expect(missing.err).toContain('codex-run');
      const agent = await run([
        'view',
        '--workspace',
        dir,
        'codex-run',
        '--agent',
        'helper',
        '--provider',
        'gemini',
      ]);
      expect(agent.err).toContain("conversation 'codex-run' has no agent 'helper'; it has: main");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
