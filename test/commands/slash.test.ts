import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runSlash, SLASH_COMMANDS, SlashUsageError, type SlashContext } from '../../src/commands/index.js';
import { prepareRequest } from '../../src/compaction/policy.js';
import { Workspace } from '../../src/store/index.js';
import { MemoryWorkspace, type AgentHistory } from '../../src/tree/index.js';
import { importTranscript } from '../../src/transcript/import/index.js';

const example = readFileSync(join(import.meta.dirname, '../../examples/session.claude.jsonl'), 'utf8');
const compaction = { model: 'claude-sonnet-4-5', budget: { window: 60_000 } };

function loaded(history: AgentHistory): AgentHistory {
  history.adopt(importTranscript(example).items);
  return history;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('slash commands', () => {
  it('are a data table with one entry per command', () => {
    expect(SLASH_COMMANDS.map((c) => c.name)).toEqual([
      'compact',
      'shake',
      'context',
      'tree',
      'branch',
      'fork',
      'checkpoint',
      'rewind',
    ]);
  });

  it('/compact appends compaction items and changes no earlier item', async () => {
    const history = loaded(new MemoryWorkspace().history('c1'));
    const before = JSON.stringify(history.path());
    const ctx: SlashContext = { history, compaction };
    const r = await runSlash('/compact', ctx);
    expect(r.output).toMatch(/snapshot vs text: .* fewer/);
    const after = history.path();
    expect(JSON.stringify(after.slice(0, JSON.parse(before).length))).toBe(before);
    const added = after.slice(JSON.parse(before).length);
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((i) => i.kind === 'compaction')).toBe(true);
    // /context now reports the compacted request.
    const context = await runSlash('/context', ctx);
    expect(context.output).toMatch(/claude-sonnet-4-5: \d+ of 60000 tokens/);
    expect(context.output).toMatch(/machinery\/image/);
  });

  it('/shake runs only the free rungs', async () => {
    const history = loaded(new MemoryWorkspace().history('c1'));
    const r = await runSlash('/shake', { history, compaction });
    expect(r.output).toMatch(/elide/);
    expect(r.output).not.toMatch(/snapshot vs text/);
    expect(
      history
        .path()
        .filter((i) => i.kind === 'compaction')
        .map((i) => i.kind === 'compaction' && i.rung),
    ).toEqual(['elide']);
  });

  it('/checkpoint, /rewind, /branch, /tree and /fork work on the history', async () => {
    const history = loaded(new MemoryWorkspace().history('c1'));
    const ctx: SlashContext = { history, compaction };
    const tip = history.tip!;
    await runSlash('/checkpoint start', ctx);
    history.append({ kind: 'message', author: 'person', text: 'try something else' });
    history.commit();
    const rew = await runSlash('/rewind start', ctx);
    expect(rew.output).toMatch(/rewound to start: 1 items abandoned/);
    await runSlash(`/branch ${tip}`, ctx);
    expect(history.tip).toBe(tip);
    expect((await runSlash('/tree', ctx)).output).toMatch(/\[checkpoint start\]/);
    const fork = await runSlash('/fork', ctx);
    expect(fork.history).toBeDefined();
    expect(fork.history!.conversation).not.toBe('c1');
    expect(fork.history!.path()).toHaveLength(history.path().length);
    await expect(runSlash('/rewind', ctx)).rejects.toThrow(SlashUsageError);
    await expect(runSlash('/nope', ctx)).rejects.toThrow(/unknown command \/nope: expected one of \/compact/);
  });

  it('rebuilds the same request bytes after reopening the workspace from disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-slash-'));
    dirs.push(dir);
    let ws = Workspace.open(dir);
    const history = loaded(ws.history('conv'));
    // The example fits after /compact at the legible default page (6x10, ~1.5× fewer tokens than text)
    // from 70k, and near the target a cold cache would compact again early (economics.ts): a warm
    // cache, so that what is tested is the replay.
    const compaction = {
      model: 'claude-sonnet-4-5',
      budget: { window: 70_000 },
      cache: { lastCallAt: 0, now: 1 },
    };
    await runSlash('/compact', { history, compaction });
    const sent = await prepareRequest(history.path(), compaction);
    expect(sent.records).toEqual([]);
    history.close();
    ws.close();
    ws = Workspace.open(dir);
    const reopened = ws.history('conv');
    const again = await prepareRequest(reopened.path(), compaction);
    expect(again.records).toEqual([]);
    // Same pages and the same body, byte for byte: a resumed run hits the same prompt cache.
    const pages = (body: unknown) => JSON.stringify(body).match(/"data":"[^"]+"/g) ?? [];
    expect(pages(again.body).length).toBeGreaterThan(0);
    expect(pages(again.body)).toEqual(pages(sent.body));
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(sent.body));
    reopened.close();
    ws.close();
  });

  it('glyphfold repl runs slash commands from stdin against a workspace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-repl-'));
    dirs.push(dir);
    const ws = Workspace.open(dir);
    loaded(ws.history('conv')).close();
    ws.close();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    stdin.end('/context\n/shake\nplease continue\n/bogus\n/quit\n');
    const code = await main(
      ['repl', '--workspace', dir, '--model', 'claude-sonnet-4-5', '--budget', '60000'],
      {
        stdin,
        stdout,
        stderr,
        isTTY: false,
        cwd: process.cwd(),
      },
    );
    expect(out).toMatch(/conversation conv, agent main, 167 items/);
    expect(out).toMatch(/claude-sonnet-4-5: \d+ of 60000 tokens/);
    expect(out).toMatch(/appended \(turn \d+\)/);
    expect(out).toMatch(/usage: unknown command \/bogus/);
    expect(code).toBe(1);
  });
});

describe('glyphfold repl and a workspace legibility.json', () => {
  const runRepl = async (dir: string, input: string, extra: string[] = []) => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    stdin.end(input);
    const code = await main(
      ['repl', '--workspace', dir, '--model', 'claude-sonnet-4-5', '--budget', '60000', ...extra],
      { stdin, stdout, stderr, isTTY: false, cwd: process.cwd() },
    );
    return { code, out, err };
  };

  it('puts the workspace’s own measurements before the built-in table, and names bad files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-repl-legibility-'));
    dirs.push(dir);
    const ws = Workspace.open(dir);
    loaded(ws.history('conv')).close();
    ws.close();
    const mine = {
      version: 1,
      variants: [
        {
          variant: '5x8+r1',
          cer: {
            claude: { cer: 0.004, chars: 5000, readers: 3, date: '2026-12-01', source: 'our probe, run 3' },
          },
        },
      ],
    };
    writeFileSync(join(dir, 'legibility.json'), JSON.stringify(mine));
    const r = await runRepl(dir, '/compact\n/quit\n');
    expect(r.out).toMatch(/\(5x8\+r1\)/);
    expect(r.out).toMatch(/expected CER 0\.4% \(claude readers, floor 1\.0%; our probe, run 3\)/);
    writeFileSync(join(dir, 'legibility.json'), '{"variants": [{"variant": "9x9", "cer": {}}]}');
    const bad = await runRepl(dir, '/quit\n');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/legibility\.json\.variants\[0\]\.variant: .*unknown cell '9x9'/);
  });
});
