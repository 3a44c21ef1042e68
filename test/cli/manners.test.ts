/** The CLI's manners: --help on every command, --version, unknown help topics, unknown models, keys. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { anthropicSummarizer, geminiSummarizer, openaiSummarizer } from '../../src/compaction/summarize.js';
import { runCli } from '../helpers/cli.js';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const example = join(root, 'examples', 'session.claude.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'glyphfold-manners-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('glyphfold CLI manners', () => {
  it.each(COMMANDS.map((c) => c.name))('%s --help and -h print its usage and exit 0', async (name) => {
    const usage = COMMANDS.find((c) => c.name === name)!.usage.trimEnd() + '\n';
    for (const flag of ['--help', '-h']) {
      const r = await runCli([name, flag]);
      expect(r.code).toBe(0);
      expect(r.out).toBe(usage);
      expect(r.err).toBe('');
    }
    // Wherever it stands among other options, before `--`.
    expect((await runCli([name, 'x', '--nonsense', '--help'])).code).toBe(0);
  });

  it('--version prints the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await runCli([flag]);
      expect(r).toEqual({ code: 0, out: `${pkg.version}\n`, err: '' });
    }
  });

  it('help for an unknown command exits 2 and names it', async () => {
    const r = await runCli(['help', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown command 'nosuch'/);
    expect((await runCli(['help', 'compact'])).code).toBe(0);
  });

  it('compact with an unknown model names it and still runs the rungs that need no vision', async () => {
    const r = await runCli([
      'compact',
      example,
      '--model',
      'nosuch-model-1',
      '--budget',
      '100000',
      '--out',
      join(dir, 'out'),
    ]);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/unknown model 'nosuch-model-1'/);
    expect(r.out).toMatch(/elide\s+[\d,]+ → [\d,]+: elided \d+ tool results/);
    expect(r.out).toMatch(/snapshot\s+skipped: model has no vision/);
  });

  it('the summary rung without a key says which variable to set, not the SDK error', async () => {
    const saved = process.env['ANTHROPIC_API_KEY'];
    delete process.env['ANTHROPIC_API_KEY'];
    try {
      const r = await runCli([
        'compact',
        example,
        '--model',
        'claude-sonnet-4-5',
        '--budget',
        '30000',
        '--summarizer',
        'claude-haiku-4-5',
        '--out',
        join(dir, 'out2'),
      ]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/anthropicSummarizer\(claude-haiku-4-5\): no API key: set ANTHROPIC_API_KEY/);
    } finally {
      if (saved !== undefined) process.env['ANTHROPIC_API_KEY'] = saved;
    }
  });
});

describe('summarizers without a key', () => {
  it.each([
    ['ANTHROPIC_API_KEY', () => anthropicSummarizer({ model: 'claude-haiku-4-5' })],
    ['OPENAI_API_KEY', () => openaiSummarizer({ model: 'gpt-5-mini' })],
    ['GEMINI_API_KEY', () => geminiSummarizer({ model: 'gemini-2.5-flash' })],
  ] as const)('fail before any request, naming %s', async (variable, make) => {
    const saved = process.env[variable];
    delete process.env[variable];
    try {
      await expect(make().complete({ system: 's', user: 'u', maxTokens: 10 })).rejects.toThrow(
        new RegExp(`no API key: set ${variable}`),
      );
    } finally {
      if (saved !== undefined) process.env[variable] = saved;
    }
  });
});
