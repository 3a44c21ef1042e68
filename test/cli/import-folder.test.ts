/**
 * Whole-record import: real sessions (test/fixtures/transcripts/real/, see the README there: Claude
 * Code project folders, Codex rollouts, SWE-agent, mini-SWE-agent and LangGraph runs) through the real
 * CLI in child processes, and the library on the same files.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
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
import type { Item, ToolCallItem } from '../../src/transcript/items.js';
import { exportJsonl } from '../../src/transcript/jsonl.js';
import { runCli } from '../helpers/cli.js';
import { BACKED_UP, writeFileHistorySession } from '../helpers/file-history-session.js';

const REAL_ROOT = 'test/fixtures/transcripts/real';
const REAL = join(REAL_ROOT, 'claude-code');
/** 27 real sessions under REAL_ROOT: 20 Claude Code, 1 Codex, 3 SWE-agent, 1 mini-SWE-agent, 2 LangGraph. */
const SESSIONS = 27;
/** A session codemie-code's authors recorded twice: its first 20 lines (their turn-1.jsonl), then whole. */
const GROWN = '3fb74381-1bf4-475e-8c6f-442d872b1bcf';
const GROWN_FILE = join(REAL, 'codemie', `${GROWN}.jsonl`);
const GROWN_CUT = 20;
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

describe('round trip through the glyphfold JSONL export', () => {
  it('keeps the tree shape: import → exportJsonl(tree) → import', () => {
    const r = importTranscript(readFileSync('test/fixtures/transcripts/claude-code.jsonl', 'utf8'));
    const back = importTranscript(exportJsonl(r.tree), { idPrefix: 'gf' });
    expect(back.format).toBe('glyphfold');
    expect(back.warnings).toEqual([]);
    const shape = (items: readonly Item[]): (number | null)[] => {
      const at = new Map(items.map((i, n) => [i.id, n]));
      return items.map((i) => (i.parent === null ? null : at.get(i.parent)!));
    };
    expect(shape(back.tree)).toEqual(shape(r.tree));
    const strip = (items: readonly Item[]) => items.map(({ id: _i, parent: _p, ...rest }) => rest);
    expect(strip(back.tree)).toEqual(strip(r.tree));
    expect(back.tree.filter((i) => !back.tree.some((c) => c.parent === i.id))).toHaveLength(2);
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

/** The conversations of a workspace (opened and closed again). */
function conversations(dir: string): string[] {
  const w = Workspace.open(dir, { readOnly: true });
  try {
    return w.conversations();
  } finally {
    w.close();
  }
}

/** Item ids and tip of every history in a workspace, by conversation and agent. */
function snapshot(dir: string): Map<string, { ids: string[]; tip: string | null }> {
  const out = new Map<string, { ids: string[]; tip: string | null }>();
  const w = Workspace.open(dir, { readOnly: true });
  try {
    for (const c of w.conversations())
      for (const a of w.conversation(c)!.agents) {
        const h = w.history(c, a, { readOnly: true });
        out.set(`${c}/${a}`, { ids: h.items().map((i) => i.id), tip: h.tip });
        h.close();
      }
  } finally {
    w.close();
  }
  return out;
}

/**
 * Each warning kind the import summary may print, as a pattern; docs/import.md ("Warnings by kind")
 * must hold an example of each, so a kind nobody documented fails the test below.
 */
const DOCUMENTED_KINDS = [
  /^bookkeeping entries not imported \(never sent to the model\): N [\w-]+(, N [\w-]+)*$/,
  /^system entries not imported \(shown to the person, not sent to the model\): N \w+/,
  /^N entries name a parent that is not in the file /,
  /^N file-history snapshots name a message that is not in the log/,
  /^tool call N \([^)]*\): no result for callId N \(orphan kept\)$/,
  /^tool call N: callId N is used twice$/,
  /^web_search_call not imported /,
  /^trajectory: N steps .* not imported/,
  /^environment, info(, replay_config)? not imported \(run metadata, not conversation\)$/,
  /^N demonstration entries \(is_demo\) imported as context/,
];

describe('glyphfold import FOLDER (child processes, 27 real sessions in five formats)', () => {
  const project = join(tmp, 'real');
  const ws = join(tmp, 'ws');
  cpSync(REAL_ROOT, project, { recursive: true });
  const cut = join(project, 'claude-code', 'codemie', `${GROWN}.jsonl`);
  const full = readFileSync(cut, 'utf8');
  const lines = full.trimEnd().split('\n');
  writeFileSync(cut, lines.slice(0, GROWN_CUT).join('\n') + '\n');
  let first = { code: null as number | null, out: '', err: '' };

  it('imports every session with progress and a summary', () => {
    first = cli('import', project, '--workspace', ws);
    expect(first.code, first.err).toBe(0);
    const progress = first.err.split('\n').filter((l) => new RegExp(`^\\[\\d+/${SESSIONS}\\] `).test(l));
    expect(progress).toHaveLength(SESSIONS);
    for (const name of ['codex/2026/05/11/rollout-', 'swe-agent-pydicom-1458.traj', 'langgraph-response-2'])
      expect(progress.some((l) => l.includes(`${name}`) && / imported as /.test(l))).toBe(true);
    expect(first.out).toMatch(
      new RegExp(`^${SESSIONS} sessions in .* ${SESSIONS} imported, 0 extended, 0 unchanged, 0 failed$`, 'm'),
    );
    expect(first.out).toMatch(
      new RegExp(
        `written: ${SESSIONS} conversations, 27 subagent histories, \\d+ items, \\d+ branches, \\d+ checkpoints`,
      ),
    );
    expect(conversations(ws)).toHaveLength(SESSIONS);
  });

  it('drops nothing without a reason: every warning kind in the summary is documented', () => {
    const kinds = first.out
      .split('warnings by kind:\n')[1]!
      .split('\n')
      .filter((l) => /^ +\d+ × /.test(l))
      .map((l) => l.replace(/^ +\d+ × /, ''));
    expect(kinds.length).toBeGreaterThan(5);
    for (const k of kinds)
      expect(
        DOCUMENTED_KINDS.filter((p) => p.test(k)),
        k,
      ).toHaveLength(1);
    const doc = readFileSync('docs/import.md', 'utf8').split('### Warnings by kind')[1]!.split('\n## ')[0]!;
    const rows = [...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
    for (const p of DOCUMENTED_KINDS)
      expect(
        rows.filter((r) => p.test(r)),
        String(p),
      ).toHaveLength(1);
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

  it('re-runs idempotently: unchanged sessions are skipped, a grown one extends exactly its conversation', () => {
    const again = cli('import', project, '--workspace', ws);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(new RegExp(`${SESSIONS} unchanged, 0 failed`));
    expect(again.out).toMatch(/^written: 0 conversations, 0 subagent histories, 0 items/m);
    const before = snapshot(ws);
    appendFileSync(cut, lines.slice(GROWN_CUT).join('\n') + '\n');
    expect(readFileSync(cut, 'utf8')).toBe(full);
    const grown = cli('import', project, '--workspace', ws);
    expect(grown.code).toBe(0);
    expect(grown.out).toMatch(new RegExp(`0 imported, 1 extended, ${SESSIONS - 1} unchanged, 0 failed`));
    expect(grown.err).toMatch(new RegExp(`codemie/${GROWN}\\.jsonl: extended as ${GROWN}: `));
    const after = snapshot(ws);
    expect([...after.keys()]).toEqual([...before.keys()]);
    const changed = [...after].filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before.get(k)));
    expect(changed.map(([k]) => k)).toEqual([`${GROWN}/main`]);
    // The extended history holds what a fresh import of the whole file holds, its old items first.
    const fresh = importTranscript(full);
    const h = after.get(`${GROWN}/main`)!;
    expect(h.ids).toEqual(fresh.tree.map((i) => i.id));
    expect(h.ids.slice(0, before.get(`${GROWN}/main`)!.ids.length)).toEqual(before.get(`${GROWN}/main`)!.ids);
    expect(h.ids.length).toBeGreaterThan(before.get(`${GROWN}/main`)!.ids.length);
    expect(h.tip).toBe(fresh.tip);
    expect(cli('import', project, '--workspace', ws).out).toMatch(
      new RegExp(`${SESSIONS} unchanged, 0 failed`),
    );
    // The file on its own goes through the same ledger: its folder-given conversation, unchanged.
    const one = cli('import', cut, '--workspace', ws);
    expect(one.code).toBe(0);
    expect(one.out).toBe(
      `unchanged: ${cut} holds what was imported into conversation ${GROWN} agent main; nothing written\n`,
    );
  });

  it('reports a session rewritten since it was imported and leaves its history alone', () => {
    const file = join(
      project,
      'claude-code',
      'claude-code-viewer',
      '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
    );
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text.replace('"content":"<command-message>init is analy', '"content":"<command-message>INIT is analy'),
    );
    const r = cli('import', project, '--workspace', ws, '--dry-run');
    expect(r.out).toMatch(/1 failed/);
    const before = snapshot(ws);
    const real = cli('import', project, '--workspace', ws);
    expect(real.code).toBe(1);
    expect(real.out).toMatch(
      /failed: .*1af7fc5e.*rewritten since it was imported: agent main: item imp-000001 differs/,
    );
    expect(snapshot(ws)).toEqual(before);
    writeFileSync(file, text);
    expect(cli('import', project, '--workspace', ws).out).toMatch(
      new RegExp(`${SESSIONS} unchanged, 0 failed`),
    );
    expect(basename(file)).toBe('1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
  });
});

describe('glyphfold import FILE again (child processes, real sessions)', () => {
  const dir = join(tmp, 'single');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${GROWN}.jsonl`);
  const full = readFileSync(GROWN_FILE, 'utf8');
  const lines = full.trimEnd().split('\n');
  writeFileSync(file, lines.slice(0, GROWN_CUT).join('\n') + '\n');
  const ws = join(tmp, 'ws-single');
  const ledger = join(ws, 'imports.json');
  let conversation = '';
  let firstCount = 0;
  const items = (): string[] => snapshot(ws).get(`${conversation}/main`)?.ids ?? [];

  it('imports a new file as a new conversation; importing it again says it is unchanged', () => {
    const r = cli('import', file, '--workspace', ws);
    expect(r.code, r.err).toBe(0);
    const m = /^imported (\d+) items \(claude-code\) into conversation (\S+) agent main/.exec(r.out)!;
    expect(m).not.toBeNull();
    conversation = m[2]!;
    expect(conversation).toMatch(new RegExp(`^${GROWN}-[0-9a-f]{8}$`));
    firstCount = items().length;
    expect(firstCount).toBe(Number(m[1]));
    const again = cli('import', file, '--workspace', ws);
    expect(again.code).toBe(0);
    expect(again.out).toBe(
      `unchanged: ${file} holds what was imported into conversation ${conversation} agent main; nothing written\n`,
    );
    expect(conversations(ws)).toEqual([conversation]);
    expect(JSON.parse(readFileSync(ledger, 'utf8')).sources[file].conversation).toBe(conversation);
  });

  it('appends what a grown file gained to the same conversation (a dry run first changes nothing)', () => {
    appendFileSync(file, lines.slice(GROWN_CUT).join('\n') + '\n');
    const dry = cli('import', file, '--workspace', ws, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(
      new RegExp(`^would extend conversation ${conversation} agent main by \\d+ items`),
    );
    expect(items()).toHaveLength(firstCount);
    const r = cli('import', file, '--workspace', ws);
    expect(r.code, r.err).toBe(0);
    const m = new RegExp(`^extended conversation ${conversation} agent main by (\\d+) items`).exec(r.out)!;
    expect(m).not.toBeNull();
    expect(conversations(ws)).toEqual([conversation]);
    const fresh = importTranscript(full);
    expect(items()).toEqual(fresh.tree.map((i) => i.id));
    expect(Number(m[1])).toBe(fresh.tree.length - firstCount);
    expect(cli('import', file, '--workspace', ws).out).toMatch(/^unchanged: /);
  });

  it('refuses a file rewritten since its import: exit 1, nothing changed', () => {
    const before = items();
    const ledgerBefore = readFileSync(ledger, 'utf8');
    expect(full).toContain('"content":"show tools"');
    writeFileSync(file, full.replace('"content":"show tools"', '"content":"show all tools"'));
    const r = cli('import', file, '--workspace', ws);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `was rewritten since it was imported into conversation ${conversation}: agent main: item imp-\\d+ differs`,
      ),
    );
    expect(items()).toEqual(before);
    expect(readFileSync(ledger, 'utf8')).toBe(ledgerBefore);
    writeFileSync(file, full);
    expect(cli('import', file, '--workspace', ws).code).toBe(0);
  });

  it('keeps a known file in its conversation: --conversation naming another is an error', () => {
    const r = cli('import', file, '--workspace', ws, '--conversation', 'elsewhere');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`was imported into conversation ${conversation} agent main`));
    expect(conversations(ws)).toEqual([conversation]);
  });

  it("a folder import of the same folder continues the file's conversation", () => {
    const r = cli('import', dir, '--workspace', ws);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^1 sessions in .* 0 imported, 0 extended, 1 unchanged, 0 failed$/m);
    expect(conversations(ws)).toEqual([conversation]);
  });

  it('extends the agent history of a subagent log that grew', () => {
    const s = '4b2030ed-5563-49ea-b703-6a002f2d3cc8';
    const root = join(tmp, 'single-agents');
    const sub = join(root, s, 'subagents');
    mkdirSync(sub, { recursive: true });
    cpSync(join(sessionDir, `${s}.jsonl`), join(root, `${s}.jsonl`));
    const agentText = readFileSync(join(sessionDir, s, 'subagents', 'agent-a2018e5.jsonl'), 'utf8');
    const agentLines = agentText.trimEnd().split('\n');
    writeFileSync(join(sub, 'agent-a2018e5.jsonl'), agentLines.slice(0, 3).join('\n') + '\n');
    const w2 = join(tmp, 'ws-single-agents');
    const r = cli('import', join(root, `${s}.jsonl`), '--workspace', w2);
    expect(r.code, r.err).toBe(0);
    const count = (): number => [...snapshot(w2)].find(([k]) => k.endsWith('/agent-a2018e5'))![1].ids.length;
    const before = count();
    writeFileSync(join(sub, 'agent-a2018e5.jsonl'), agentText);
    const grown = cli('import', join(root, `${s}.jsonl`), '--workspace', w2);
    expect(grown.code, grown.err).toBe(0);
    expect(grown.out).toMatch(/^extended conversation \S+ agent main by \d+ items/);
    expect(count()).toBeGreaterThan(before);
    const whole = importClaudeCodeSession({
      main: readFileSync(join(root, `${s}.jsonl`), 'utf8'),
      agents: [{ file: 'agent-a2018e5.jsonl', text: agentText }],
    });
    expect(count()).toBe(whole.agents[0]!.result.tree.length);
    expect(snapshot(w2).size).toBe(2);
  });

  it('changes no history when one log of a session grew and another was rewritten', () => {
    const s = '4b2030ed-5563-49ea-b703-6a002f2d3cc8';
    const root = join(tmp, 'single-mixed');
    const sub = join(root, s, 'subagents');
    mkdirSync(sub, { recursive: true });
    const main = readFileSync(join(sessionDir, `${s}.jsonl`), 'utf8');
    const agentText = readFileSync(join(sessionDir, s, 'subagents', 'agent-a2018e5.jsonl'), 'utf8');
    writeFileSync(join(root, `${s}.jsonl`), main.trimEnd().split('\n').slice(0, 6).join('\n') + '\n');
    writeFileSync(join(sub, 'agent-a2018e5.jsonl'), agentText);
    const w3 = join(tmp, 'ws-single-mixed');
    expect(cli('import', join(root, `${s}.jsonl`), '--workspace', w3).code).toBe(0);
    const before = snapshot(w3);
    // The main log grows (it would be extended) while the subagent's first prompt is edited.
    writeFileSync(join(root, `${s}.jsonl`), main);
    expect(agentText).toContain('most popular color of Thai curry');
    writeFileSync(
      join(sub, 'agent-a2018e5.jsonl'),
      agentText.replace('most popular color', 'least popular color'),
    );
    const r = cli('import', join(root, `${s}.jsonl`), '--workspace', w3);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /rewritten since it was imported into conversation \S+: agent agent-a2018e5: item /,
    );
    expect(snapshot(w3)).toEqual(before);
    // The same session in a folder import: reported as failed, nothing written either.
    const f = cli('import', root, '--workspace', w3);
    expect(f.code).toBe(1);
    expect(f.out).toMatch(/0 imported, 0 extended, 0 unchanged, 1 failed/);
    expect(snapshot(w3)).toEqual(before);
  });
});

describe('folder layouts, file backups and dry runs', () => {
  it('redraws one progress line on a terminal', async () => {
    const r = await runCli(['import', sessionDir, '--workspace', join(tmp, 'ws-tty')], { isTTY: true });
    expect(r.code).toBe(0);
    const redraw = '\r\u001b[K';
    expect(r.err.startsWith(`${redraw}[1/2] `)).toBe(true);
    expect(r.err).toContain(`${redraw}[2/2] `);
    expect(r.err.endsWith('\n')).toBe(true);
    expect(r.err.split('\n')).toHaveLength(2);
  });

  it('imports a Codex sessions tree (YYYY/MM/DD) and an older Claude Code layout (agent files beside the session)', () => {
    const root = join(tmp, 'layouts');
    const day = join(root, 'codex', '2026', '11', '21');
    mkdirSync(day, { recursive: true });
    const rollout = 'rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799';
    cpSync(join(REAL_ROOT, 'codex', '2026', '05', '11', `${rollout}.jsonl`), join(day, `${rollout}.jsonl`));
    // A real session, its subagent log moved beside it as Claude Code 2.0 wrote them.
    const cc = join(root, 'claude');
    mkdirSync(cc, { recursive: true });
    const s = '4b2030ed-5563-49ea-b703-6a002f2d3cc8';
    cpSync(join(sessionDir, `${s}.jsonl`), join(cc, `${s}.jsonl`));
    cpSync(join(sessionDir, s, 'subagents', 'agent-a2018e5.jsonl'), join(cc, 'agent-a2018e5.jsonl'));
    const ws = join(tmp, 'ws-layouts');
    const dry = cli('import', root, '--workspace', ws, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^dry run: 2 sessions .* 2 imported/m);
    expect(existsSync(ws)).toBe(false); // a dry run writes nothing
    const r = cli('import', root, '--workspace', ws);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/2 sessions .* 2 imported, 0 extended, 0 unchanged, 0 failed/);
    const w = Workspace.open(ws, { readOnly: true });
    try {
      expect(w.conversations()).toEqual([s, rollout]);
      expect(w.conversation(s)!.agents).toEqual(['agent-a2018e5', 'main']);
      const main = w.history(s, 'main', { readOnly: true });
      const task = main
        .items()
        .find((i): i is ToolCallItem => i.kind === 'tool_call' && i.agent !== undefined);
      expect(task?.agent).toBe('agent-a2018e5');
    } finally {
      w.close();
    }
  });

  it('stores the files of a file-history snapshot (backups found beside projects/, the --file-history default), so restore puts them back', () => {
    const root = join(tmp, 'fh');
    const { project } = writeFileHistorySession(root);
    const ws = join(tmp, 'ws-fh');
    const r = cli('import', project, '--workspace', ws);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/1 checkpoints/);
    const app = join(root, 'app', 'src');
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, 'x.ts'), 'export const x = 2;\n');
    writeFileSync(join(app, 'new.ts'), 'created later\n');
    const w = Workspace.open(ws);
    try {
      const h = w.history('sess-1');
      const [cp] = h.checkpoints();
      expect(cp!.label).toBe('cc-u2');
      expect(cp!.at).toBe(h.items()[1]!.id); // before the second prompt
      const restored = h.restore('cc-u2', { code: true });
      expect(readFileSync(join(app, 'x.ts'), 'utf8')).toBe(BACKED_UP);
      expect(existsSync(join(app, 'new.ts'))).toBe(false);
      expect(restored.files!.deleted).toEqual([join(app, 'new.ts')]);
      h.close();
    } finally {
      w.close();
    }
  });
});
