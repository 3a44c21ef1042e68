/**
 * Whole-record import: real Claude Code sessions (test/fixtures/transcripts/real/claude-code/, see the
 * README there) through the real CLI in child processes, and the library on the same files.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/workspace.js';
import { importClaudeCodeSession, importTranscript } from '../../src/transcript/import/index.js';
import type { ToolCallItem } from '../../src/transcript/items.js';

const REAL = 'test/fixtures/transcripts/real/claude-code';
const tmp = mkdtempSync(join(tmpdir(), 'glyphfold-import-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const SESSION = '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68';
const sessionDir = join(REAL, 'session-share');
const subagents = (): { file: string; text: string }[] =>
  readdirSync(join(sessionDir, SESSION, 'subagents'))
    .sort()
    .map((f) => ({ file: f, text: readFileSync(join(sessionDir, SESSION, 'subagents', f), 'utf8') }));

describe('a real Claude Code session with a branch and subagent files (library)', () => {
  const r = importClaudeCodeSession({
    main: readFileSync(join(sessionDir, `${SESSION}.jsonl`), 'utf8'),
    agents: subagents(),
  });

  it('keeps the prompt typed on the other branch as a branch, tip at the newest entry', () => {
    const leaves = r.tree.filter((i) => !r.tree.some((c) => c.parent === i.id));
    expect(leaves).toHaveLength(2);
    expect(r.tip).toBe(r.items.at(-1)!.id);
    const off = r.tree.filter((i) => !r.items.includes(i));
    expect(off.some((i) => i.kind === 'message' && i.text === 'are they still being written?')).toBe(true);
    // Parallel Task calls and their results stay on one line: results never open a branch.
    const fork = r.tree.filter((i) => r.tree.filter((c) => c.parent === i.id).length > 1);
    expect(fork).toHaveLength(1);
    expect(fork[0]!.kind).toBe('message');
  });

  it('imports each subagent file as an agent history linked from the Task call that started it', () => {
    expect(r.agents.map((a) => a.name)).toEqual([
      'agent-a5bdbc1',
      'agent-a9cad17',
      'agent-aa5ef13',
      'agent-ac27727',
      'agent-afbbf75',
    ]);
    const tasks = r.tree.filter((i): i is ToolCallItem => i.kind === 'tool_call' && i.name === 'Task');
    for (const a of r.agents) {
      expect(a.result.items.length).toBeGreaterThan(2);
      const call = tasks.find((t) => t.callId === a.calledBy)!;
      expect(call.agent).toBe(a.name);
    }
  });

  it('turns every file-history snapshot into a checkpoint before its prompt', () => {
    expect(r.checkpoints).toHaveLength(10);
    expect(r.checkpoints[0]).toMatchObject({ at: null, files: {} });
    for (const cp of r.checkpoints.slice(1)) expect(r.tree.some((i) => i.id === cp.at)).toBe(true);
  });
});

describe('logs without parent links and empty imports', () => {
  it('imports a chainless log (written for this test) in file order, said once', () => {
    const l = (type: string, content: unknown, n: number): string =>
      JSON.stringify({
        type,
        uuid: `u${n}`,
        parentUuid: null,
        timestamp: `2025-06-01T10:00:0${n}.000Z`,
        message: { role: type, content },
      });
    const text = [
      l('user', 'first', 1),
      l('assistant', [{ type: 'text', text: 'one' }], 2),
      l('user', 'second', 3),
      l('assistant', [{ type: 'text', text: 'two' }], 4),
    ].join('\n');
    const r = importTranscript(text);
    expect(r.items.map((i) => ('text' in i ? i.text : ''))).toEqual(['first', 'one', 'second', 'two']);
    expect(r.tree).toHaveLength(4);
    expect(r.warnings.filter((w) => w.includes('file order'))).toHaveLength(1);
  });

  it('refuses an import that yields nothing, with a non-zero exit', () => {
    const file = join(tmp, 'empty.json');
    writeFileSync(file, '[{"role":"user"}]');
    const r = cli('import', file, '--workspace', join(tmp, 'ws-empty'));
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/holds no items to import/);
  });
});

describe('glyphfold import FOLDER (child processes, real sessions)', () => {
  const project = join(tmp, 'projects');
  const ws = join(tmp, 'ws');
  cpSync(REAL, project, { recursive: true });
  const cut = join(project, 'spotter', 'short.jsonl');
  const full = readFileSync(cut, 'utf8');
  const lines = full.trimEnd().split('\n');
  // The last session as it was mid-run: its first 8 lines.
  writeFileSync(cut, lines.slice(0, 8).join('\n') + '\n');

  it('imports every session with progress and a summary', () => {
    const r = cli('import', project, '--workspace', ws);
    expect(r.code).toBe(0);
    const progress = r.err.split('\n').filter((l) => /^\[\d+\/13\] /.test(l));
    expect(progress).toHaveLength(13);
    expect(r.out).toMatch(/^13 sessions in .* 13 imported, 0 extended, 0 unchanged, 0 failed$/m);
    expect(r.out).toMatch(
      /written: 13 conversations, 24 subagent histories, \d+ items, \d+ branches, \d+ checkpoints/,
    );
  });

  it('draws the branch in glyphfold tree, and the tip can be moved to it and back', () => {
    const t = cli('tree', '--workspace', ws, SESSION, '--agent', 'main');
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/^\|- /m);
    expect(t.out).toMatch(/^`- .*are they still being written\?/m);
    expect(t.out).toMatch(/<- tip/);
    const w = Workspace.open(ws);
    try {
      const h = w.history(SESSION);
      const tip = h.tip!;
      const other = h
        .items()
        .find((i) => i.kind === 'message' && i.text === 'are they still being written?')!;
      h.branch(other.id);
      expect(h.path().at(-1)!.id).toBe(other.id);
      h.branch(tip);
      expect(h.path().at(-1)!.id).toBe(tip);
      h.close();
      expect(w.conversation(SESSION)!.agents).toHaveLength(6);
    } finally {
      w.close();
    }
  });

  it('re-runs idempotently: unchanged sessions are skipped, a grown one is extended', () => {
    const again = cli('import', project, '--workspace', ws);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/13 unchanged, 0 failed/);
    appendFileSync(cut, lines.slice(8).join('\n') + '\n');
    const grown = cli('import', project, '--workspace', ws);
    expect(grown.code).toBe(0);
    expect(grown.out).toMatch(/0 imported, 1 extended, 12 unchanged, 0 failed/);
    expect(grown.err).toMatch(/short\.jsonl: extended as short/);
    // The extended history holds what a fresh import of the whole file holds.
    const fresh = importTranscript(full);
    const w = Workspace.open(ws, { readOnly: true });
    try {
      const h = w.history('short', 'main', { readOnly: true });
      expect(h.items().map((i) => i.id)).toEqual(fresh.tree.map((i) => i.id));
      expect(h.tip).toBe(fresh.tip);
    } finally {
      w.close();
    }
  });

  it('reports a session rewritten since it was imported and leaves its history alone', () => {
    const file = join(project, 'claude-code-viewer', '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text.replace('"content":"<command-message>init is analy', '"content":"<command-message>INIT is analy'),
    );
    const r = cli('import', project, '--workspace', ws, '--dry-run');
    expect(r.out).toMatch(/1 failed/);
    const real = cli('import', project, '--workspace', ws);
    expect(real.code).toBe(1);
    expect(real.out).toMatch(
      /failed: .*1af7fc5e.*rewritten since it was imported: agent main: item imp-000001 differs/,
    );
    writeFileSync(file, text);
    expect(cli('import', project, '--workspace', ws).out).toMatch(/13 unchanged, 0 failed/);
    expect(basename(file)).toBe('1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
  });
});
