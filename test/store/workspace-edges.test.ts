/**
 * The workspace's edges (issue 18): a read-only workspace (no writer, an index in memory), a system
 * prompt fixed at creation, a conversation whose log was written but never indexed, an uncommitted
 * tail set aside, an empty log taken over with acceptDamage, an unreadable database moved aside.
 */
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LogIntegrityError,
  ReindexLossError,
  Workspace,
  WorkspaceDatabaseError,
} from '../../src/store/workspace.js';
import { LogFullError } from '../../src/store/logfile.js';
import { encodeEntries } from '../../src/transcript/log.js';

const sqlite = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => {
  exec(sql: string): void;
  prepare(sql: string): { all(): unknown[] };
  close(): void;
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gf-wse-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function seed(ws: Workspace, conversation = 'c1', agent = 'main', turns = 2): void {
  const h = ws.history(conversation, agent);
  for (let t = 1; t <= turns; t++) {
    h.append({ kind: 'message', author: 'person', text: `question ${t}` });
    h.append({ kind: 'message', author: 'model', text: `answer ${t}` });
    h.commit();
  }
  h.close();
}

describe('a read-only workspace', () => {
  it('refuses a directory without a workspace and creates nothing there', () => {
    expect(() => Workspace.open(dir, { readOnly: true })).toThrow(
      `no glyphfold workspace in ${dir} (expected ${join(dir, 'logs')})`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(Workspace.open(dir).readOnly).toBe(false);
    expect(existsSync(join(dir, 'logs'))).toBe(true);
  });

  it('opens histories only for reading, and without a database indexes the logs in memory', () => {
    const w = Workspace.open(dir);
    seed(w, 'c1');
    seed(w, 'c2', 'helper', 3);
    w.close();
    for (const f of ['workspace.db', 'workspace.db-wal', 'workspace.db-shm'])
      rmSync(join(dir, f), { force: true });
    const ro = Workspace.open(dir, { readOnly: true });
    expect(ro.readOnly).toBe(true);
    expect(() => ro.history('c1')).toThrow(
      `conversation c1 agent main: the workspace ${dir} is open read-only; pass { readOnly: true }`,
    );
    expect(ro.conversations()).toEqual(['c1', 'c2']);
    expect(ro.conversation('c2')?.agents).toEqual(['helper']);
    const h = ro.history('c2', 'helper', { readOnly: true });
    expect(h.turn).toBe(3);
    h.close();
    ro.close();
    expect(existsSync(join(dir, 'workspace.db'))).toBe(false);
  });
});

describe('system prompt', () => {
  it('is recorded when the history is created and must match on every later open that names one', () => {
    const ws = Workspace.open(dir);
    const h = ws.history('c1', 'main', { system: 'Be brief.' });
    expect(h.system).toBe('Be brief.');
    h.append({ kind: 'message', author: 'person', text: 'hi' });
    h.commit();
    h.close();
    const same = ws.history('c1', 'main', { system: 'Be brief.' });
    expect(same.system).toBe('Be brief.');
    same.close();
    const unnamed = ws.history('c1', 'main', { readOnly: true });
    expect(unnamed.system).toBe('Be brief.');
    unnamed.close();
    expect(() => ws.history('c1', 'main', { system: 'Be verbose.' })).toThrow(
      'conversation c1 agent main exists and was created with another system prompt (9 chars)',
    );
    // Without one recorded, naming one is the mismatch too; the refused open left the lock free.
    seed(ws, 'c2');
    expect(() => ws.history('c2', 'main', { system: 'x' })).toThrow(
      'conversation c2 agent main exists and was created with no system prompt',
    );
    const again = ws.history('c2');
    expect(again.system).toBeUndefined();
    again.close();
    ws.close();
  });
});

describe('recovery on open', () => {
  it('indexes a conversation whose logs were written but never indexed, skipping foreign files', () => {
    const ws = Workspace.open(dir);
    seed(ws, 'c1', 'main', 2);
    seed(ws, 'c1', 'helper', 1);
    ws.close();
    // A crash between creating the logs and indexing them: the rows are gone, the logs are there.
    const db = new sqlite(join(dir, 'workspace.db'));
    db.exec("DELETE FROM checkpoints; DELETE FROM histories; DELETE FROM conversations WHERE id = 'c1';");
    db.close();
    writeFileSync(join(dir, 'logs', 'c1', 'notes.txt'), 'not a log');
    writeFileSync(join(dir, 'logs', 'c1', 'bad name!.jsonl'), 'not a valid agent id');
    const again = Workspace.open(dir);
    expect(again.conversations()).toEqual([]);
    expect(again.conversation('c1')).toMatchObject({ id: 'c1', agents: ['helper', 'main'] });
    expect(again.conversations()).toEqual(['c1']);
    expect(again.historyRow('c1', 'main')).toMatchObject({ turn: 2, items: 4 });
    expect(again.conversation('c9')).toBeUndefined();
    again.close();
  });

  it('sets an uncommitted tail aside and says where', () => {
    const ws = Workspace.open(dir);
    seed(ws);
    appendFileSync(ws.logPath('c1', 'main'), '{"t":"item","half a line');
    const h = ws.history('c1');
    const p = h.problems.find((x) => x.kind === 'uncommitted');
    expect(p?.message).toMatch(/; the bytes were moved to .+/);
    const aside = p!.message.split('; the bytes were moved to ')[1]!;
    expect(existsSync(aside)).toBe(true);
    expect(h.turn).toBe(2);
    h.close();
    ws.close();
  });

  it('refuses an empty log for writing, and with acceptDamage starts it over', () => {
    const ws = Workspace.open(dir);
    seed(ws);
    ws.close();
    writeFileSync(join(dir, 'logs', 'c1', 'main.jsonl'), '');
    const w = Workspace.open(dir);
    expect(() => w.history('c1')).toThrow(LogIntegrityError);
    const h = w.history('c1', 'main', { acceptDamage: true });
    expect(h.path()).toEqual([]);
    h.append({ kind: 'message', author: 'person', text: 'again' });
    h.commit();
    h.close();
    const r = w.history('c1', 'main', { readOnly: true });
    expect(r.path().map((i) => ('text' in i ? i.text : i.kind))).toEqual(['again']);
    expect(r.problems.filter((x) => x.kind !== 'truncated')).toEqual([]);
    r.close();
    w.close();
  });
});

describe('reindex of an unreadable database', () => {
  it('moves it aside with its WAL companions and rebuilds from the logs', () => {
    const ws = Workspace.open(dir);
    seed(ws);
    ws.close();
    for (const f of ['workspace.db-wal', 'workspace.db-shm']) rmSync(join(dir, f), { force: true });
    writeFileSync(join(dir, 'workspace.db'), 'this is not a database'.repeat(200));
    writeFileSync(join(dir, 'workspace.db-wal'), '');
    const w = Workspace.open(dir);
    const report = w.reindex();
    expect(report.movedAside).toMatch(/workspace\.db\.corrupt-\d+$/);
    expect(existsSync(report.movedAside!)).toBe(true);
    expect(existsSync(`${report.movedAside!}-wal`)).toBe(true);
    expect(report).toMatchObject({ conversations: 1, histories: 1, items: 4, losses: [] });
    expect(w.historyRow('c1', 'main')).toMatchObject({ turn: 2, items: 4 });
    w.close();
  });
});

describe('reindex against what the database recorded', () => {
  /** c1 (2 turns), c2 (2 turns) and c3 (2 turns) in `dir`, the database closed. */
  function three(): void {
    const ws = Workspace.open(dir);
    for (const c of ['c1', 'c2', 'c3']) seed(ws, c);
    ws.close();
  }

  it('refuses a log gone, truncated or rewritten, names each, changes nothing; acceptLoss rebuilds', () => {
    three();
    rmSync(join(dir, 'logs', 'c1', 'main.jsonl'));
    const c2 = join(dir, 'logs', 'c2', 'main.jsonl');
    const lines = readFileSync(c2, 'utf8').split('\n');
    writeFileSync(c2, lines.slice(0, 4).join('\n') + '\n'); // header + turn 1
    // c3: a log of the same shape written elsewhere (other text), copied over.
    const other = mkdtempSync(join(tmpdir(), 'gf-wse-other-'));
    try {
      const o = Workspace.open(other);
      const h = o.history('c3');
      for (let t = 1; t <= 2; t++) {
        h.append({ kind: 'message', author: 'person', text: `other ${t}` });
        h.append({ kind: 'message', author: 'model', text: `reply ${t}` });
        h.commit();
      }
      h.close();
      o.close();
      copyFileSync(join(other, 'logs', 'c3', 'main.jsonl'), join(dir, 'logs', 'c3', 'main.jsonl'));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    const ws = Workspace.open(dir);
    let err: unknown;
    try {
      ws.reindex();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ReindexLossError);
    const e = err as ReindexLossError;
    expect(e.name).toBe('ReindexLossError');
    const byConv = Object.fromEntries(e.losses.map((l) => [l.conversation, l]));
    expect(byConv['c1']).toEqual({
      conversation: 'c1',
      agent: 'main',
      kind: 'missing',
      message: 'the log is gone; the database recorded 7 committed lines (turn 2, 4 items)',
    });
    expect(byConv['c2']).toEqual({
      conversation: 'c2',
      agent: 'main',
      kind: 'truncated',
      message: 'the log has 4 committed lines; the database recorded 7 (turn 2, 4 items)',
    });
    expect(byConv['c3']).toMatchObject({ conversation: 'c3', agent: 'main', kind: 'rewritten' });
    expect(byConv['c3']!.message).toMatch(
      /^line 7 is not the commit the database recorded \(hash [0-9a-f]{12}…\): the log was rewritten$/,
    );
    expect(e.message).toMatch(
      /^reindex: 3 log\(s\) hold less than the workspace database recorded as committed; nothing was changed\./,
    );
    expect(e.message).toContain('\n  c1/main: missing: the log is gone;');
    expect(e.message).toContain('\n  c2/main: truncated: the log has 4 committed lines;');
    // Nothing changed: the rows still say what was committed.
    expect(ws.conversations()).toEqual(['c1', 'c2', 'c3']);
    expect(ws.historyRow('c2', 'main')).toMatchObject({ lines: 7, turn: 2 });
    const report = ws.reindex({ acceptLoss: true });
    expect(report.losses.map((l) => l.kind).sort()).toEqual(['missing', 'rewritten', 'truncated']);
    expect(report).toMatchObject({ conversations: 2, histories: 2, items: 2 + 4 });
    expect(ws.conversations()).toEqual(['c2', 'c3']);
    expect(ws.historyRow('c2', 'main')).toMatchObject({ lines: 4, turn: 1, items: 2 });
    ws.close();
  });

  it('reports the problems of each log, and none for a clean one', () => {
    three();
    appendFileSync(join(dir, 'logs', 'c2', 'main.jsonl'), '{"t":"item","half');
    const ws = Workspace.open(dir);
    const report = ws.reindex();
    expect(report.problems.map((p) => [p.conversation, p.agent, p.problems.map((x) => x.kind)])).toEqual([
      ['c2', 'main', ['uncommitted']],
    ]);
    expect(report).toMatchObject({ conversations: 3, histories: 3, items: 12, losses: [] });
    ws.close();
  });
});

describe('an unreadable database', () => {
  it('is an error naming the file and the repair, with the error names set', () => {
    const ws = Workspace.open(dir);
    seed(ws);
    ws.close();
    for (const f of ['workspace.db-wal', 'workspace.db-shm']) rmSync(join(dir, f), { force: true });
    writeFileSync(join(dir, 'workspace.db'), 'this is not a database'.repeat(200));
    const w = Workspace.open(dir);
    let err: unknown;
    try {
      w.conversations();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WorkspaceDatabaseError);
    expect((err as Error).name).toBe('WorkspaceDatabaseError');
    expect((err as Error).message).toMatch(
      new RegExp(
        `^the workspace database ${join(dir, 'workspace.db')} cannot be read \\(.+\\); the logs are intact: `,
      ),
    );
    expect((err as Error).message).toContain(`'glyphfold reindex --workspace ${dir}' moves it aside`);
    expect((err as Error).cause).toBeInstanceOf(Error);
    w.close();
  });

  it('a damaged log opened for writing is a LogIntegrityError by name', () => {
    const ws = Workspace.open(dir);
    seed(ws);
    const path = ws.logPath('c1', 'main');
    writeFileSync(path, readFileSync(path, 'utf8').replace('question 1', 'question X'));
    let err: unknown;
    try {
      ws.history('c1');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LogIntegrityError);
    expect((err as Error).name).toBe('LogIntegrityError');
    expect((err as Error).message).toMatch(/is damaged; refusing to write on top of it .*:\n {2}\S/);
    ws.close();
  });
});

describe('fork', () => {
  it('names a new conversation c_ and 12 hex digits when none is given, and records its lineage', () => {
    const ws = Workspace.open(dir);
    const h = ws.history('c1', 'helper');
    h.append({ kind: 'message', author: 'person', text: 'q' });
    h.commit();
    const f = h.fork();
    expect(f.conversation).toMatch(/^c_[0-9a-f]{12}$/);
    expect(ws.conversation(f.conversation)?.forkedFrom).toEqual({
      conversation: 'c1',
      agent: 'helper',
      tip: h.tip,
    });
    f.close();
    h.close();
    ws.close();
  });
});

describe('reindex reads a log as the tree does', () => {
  it('ignores a repeated item and a tip or checkpoint naming an unknown item; a null tip and checkpoint count', () => {
    const ws = Workspace.open(dir);
    const h = ws.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'one' });
    h.append({ kind: 'message', author: 'model', text: 'two' });
    h.commit();
    const [first, second] = h.path();
    h.close();
    const row = ws.historyRow('c1', 'main')!;
    const time = new Date(0).toISOString();
    const cp = (label: string, at: string | null) => ({
      t: 'checkpoint' as const,
      checkpoint: { label, at, turn: 1, time, files: {} },
    });
    // Written as a buggy writer would: a valid chain whose entries reference what is not there.
    const { text } = encodeEntries(
      [
        { t: 'item', item: { ...first! } },
        { t: 'tip', tip: 'i_nowhere' },
        cp('lost', 'i_nowhere'),
        cp('start', null),
        cp('kept', first!.id),
        { t: 'commit', turn: 2, time },
      ],
      row.head!,
    );
    appendFileSync(ws.logPath('c1', 'main'), text);
    ws.reindex();
    expect(ws.historyRow('c1', 'main')).toMatchObject({
      items: 2,
      tip: second!.id,
      turn: 2,
      lines: row.lines + 6,
    });
    const r = ws.history('c1', 'main', { readOnly: true });
    expect(r.tip).toBe(second!.id);
    expect(r.path()).toHaveLength(2);
    expect(
      r
        .checkpoints()
        .map((c) => c.label)
        .sort(),
    ).toEqual(['kept', 'start']);
    r.close();
    // The null tip is taken: after it the row's tip is null.
    const { text: reset } = encodeEntries(
      [
        { t: 'tip', tip: null },
        { t: 'commit', turn: 3, time },
      ],
      ws.historyRow('c1', 'main')!.head!,
    );
    appendFileSync(ws.logPath('c1', 'main'), reset);
    ws.reindex();
    expect(ws.historyRow('c1', 'main')).toMatchObject({ items: 2, tip: null, turn: 3 });
    const labels = new sqlite(join(dir, 'workspace.db'));
    const rows = labels.prepare('SELECT label FROM checkpoints ORDER BY label').all() as { label: string }[];
    labels.close();
    expect(rows.map((x) => x.label)).toEqual(['kept', 'start']);
    ws.close();
  });
});

describe('options and names', () => {
  it('passes its history options (clock, ids) and its log size limit to every history', () => {
    let n = 0;
    const ws = Workspace.open(dir, {
      now: () => new Date('2020-01-02T03:04:05.000Z'),
      newId: () => `id${++n}`,
      maxLogBytes: 4096,
    });
    const h = ws.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'hi' });
    h.commit();
    expect(h.path().map((i) => [i.id, i.time])).toEqual([['id1', '2020-01-02T03:04:05.000Z']]);
    h.append({ kind: 'message', author: 'model', text: 'x'.repeat(5000) });
    expect(() => h.commit()).toThrow(LogFullError);
    h.close();
    ws.close();
  });

  it('names the kind of a bad id, and the lock after the whole agent name', () => {
    const ws = Workspace.open(dir);
    expect(() => ws.conversation('bad id')).toThrow(/^conversation id "bad id" is not allowed/);
    expect(() => ws.history('c1', 'bad agent')).toThrow(/^agent id "bad agent" is not allowed/);
    mkdirSync(join(dir, 'logs', 'bad conv'));
    mkdirSync(join(dir, 'logs', 'c2'));
    writeFileSync(join(dir, 'logs', 'c2', 'bad agent.jsonl'), '');
    expect(ws.reindex().skipped).toEqual(['logs/bad conv', 'logs/c2/bad agent.jsonl']);
    // An agent name may hold ".jsonl": only the file's own suffix becomes ".lock".
    const h = ws.history('c1', 'v.jsonl.2');
    expect(existsSync(join(dir, 'logs', 'c1', 'v.jsonl.2.lock'))).toBe(true);
    h.close();
    const f = ws.history('c1');
    expect(() => f.fork({ conversation: 'no good' })).toThrow(/^conversation id "no good" is not allowed/);
    f.close();
    ws.close();
  });

  it('lists no lineage for a conversation that was not forked', () => {
    const ws = Workspace.open(dir);
    seed(ws);
    const info = ws.conversation('c1')!;
    expect(Object.keys(info).sort()).toEqual(['agents', 'created', 'id']);
    ws.close();
  });

  it('reopens a history that was never committed to, for writing, without problems', () => {
    const ws = Workspace.open(dir);
    ws.history('c1').close();
    const h = ws.history('c1');
    expect(h.problems).toEqual([]);
    h.append({ kind: 'message', author: 'person', text: 'first' });
    h.commit();
    h.close();
    const r = ws.history('c1', 'main', { readOnly: true });
    expect(r.problems).toEqual([]);
    expect(r.path()).toHaveLength(1);
    r.close();
    ws.close();
  });

  it('reads back items written in this session from where they were written, when none are kept', () => {
    const ws = Workspace.open(dir, { retainBytes: 0 });
    const h = ws.history('c1');
    for (let t = 1; t <= 3; t++) {
      h.append({ kind: 'message', author: 'person', text: `question ${t}` });
      h.commit();
    }
    expect(h.path().map((i) => ('text' in i ? i.text : ''))).toEqual([
      'question 1',
      'question 2',
      'question 3',
    ]);
    const path = ws.logPath('c1', 'main');
    writeFileSync(path, readFileSync(path, 'utf8').replace('question 2', 'question 9'));
    expect(() => h.path()).toThrow(
      /the bytes changed since the log was opened \(sha256 [0-9a-f]{12}… expected\)$/,
    );
    h.close();
    ws.close();
  });
});

describe('a row one commit behind its log (a crash between the two)', () => {
  it('is brought up to date on open, and the history counts from the log', () => {
    const ws = Workspace.open(dir);
    seed(ws, 'c1', 'main', 2);
    const lines = readFileSync(ws.logPath('c1', 'main'), 'utf8').split('\n');
    const firstItem = (JSON.parse(lines[1]!) as { item: { id: string } }).item.id;
    ws.close();
    const head = createHash('sha256').update(lines[3]!).digest('hex');
    const behind = (): void => {
      const db = new sqlite(join(dir, 'workspace.db'));
      db.exec(`UPDATE histories SET lines = 4, turn = 1, items = 2, tip = '${firstItem}', head = '${head}'`);
      db.close();
    };
    const again = Workspace.open(dir);
    for (const readOnly of [true, false]) {
      behind();
      const h = again.history('c1', 'main', { readOnly });
      expect(h.problems).toEqual([]);
      expect(h.turn).toBe(2);
      expect(h.path()).toHaveLength(4);
      expect(h.tip).toBe(h.path()[3]!.id);
      h.close();
      expect(again.historyRow('c1', 'main')).toMatchObject({ lines: 7, turn: 2, items: 4 });
    }
    expect(again.historyRow('c1', 'main')).toMatchObject({ lines: 7, turn: 2, items: 4 });
    again.close();
  });
});
