/**
 * The workspace index against its log (issue 18): counters a reader takes from the row and a writer
 * from the log, a log rewritten to the same length (hash mismatch, not truncation), the messages of
 * writes that cannot happen, reindex's skipped names and counts, forks onto an existing conversation.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogIntegrityError, Workspace } from '../../src/store/workspace.js';

let dir: string;
let ws: Workspace;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gf-wsi-'));
  ws = Workspace.open(dir);
});
afterEach(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

function seed(turns: number, conversation = 'c1', agent = 'main'): string {
  const h = ws.history(conversation, agent);
  for (let t = 1; t <= turns; t++) {
    h.append({ kind: 'message', author: 'person', text: `question ${t}` });
    h.append({ kind: 'message', author: 'model', text: `answer ${t}` });
    h.commit();
  }
  h.close();
  return ws.logPath(conversation, agent);
}

describe('workspace index', () => {
  it('reopens with the tip, turn and item count of the log, as reader and as writer, with and without a row', () => {
    seed(3);
    const check = (h: ReturnType<Workspace['history']>): void => {
      expect(h.turn).toBe(3);
      expect(h.path().length).toBe(6);
      expect(h.tip).toBe(h.path()[5]!.id);
      h.close();
    };
    check(ws.history('c1', 'main', { readOnly: true }));
    check(ws.history('c1'));
    expect(ws.historyRow('c1', 'main')).toMatchObject({ turn: 3, items: 6, lines: 1 + 3 * 3 });
    // Without the database, the row is rebuilt from the log on open.
    ws.close();
    rmSync(join(dir, 'workspace.db'));
    for (const f of ['workspace.db-wal', 'workspace.db-shm']) rmSync(join(dir, f), { force: true });
    ws = Workspace.open(dir);
    check(ws.history('c1', 'main', { readOnly: true }));
    expect(ws.historyRow('c1', 'main')).toMatchObject({ turn: 3, items: 6, lines: 10 });
    check(ws.history('c1'));
  });

  it('a writer keeps the row current commit by commit', () => {
    const h = ws.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'one' });
    h.commit();
    expect(ws.historyRow('c1', 'main')).toMatchObject({ turn: 1, items: 1, lines: 3, tip: h.tip });
    h.checkpoint('cp');
    expect(ws.historyRow('c1', 'main')).toMatchObject({ turn: 1, items: 1, lines: 5 });
    h.append({ kind: 'message', author: 'model', text: 'two' });
    h.commit();
    expect(ws.historyRow('c1', 'main')).toMatchObject({ turn: 2, items: 2, lines: 7, tip: h.tip });
    h.close();
  });

  it('a log rewritten to the same number of lines is damage (the head hash differs), not truncation', () => {
    const path = seed(2);
    const text = readFileSync(path, 'utf8');
    // Rewrite the whole log with a different second turn of the same shape: a valid chain, other bytes.
    rmSync(path);
    ws.close();
    rmSync(join(dir, 'logs', 'c1', 'main.lock'), { force: true });
    const other = Workspace.open(join(dir, 'other'));
    const h2 = other.history('c1');
    for (let t = 1; t <= 2; t++) {
      h2.append({ kind: 'message', author: 'person', text: `question ${t}` });
      h2.append({ kind: 'message', author: 'model', text: `ANSWER ${t}` });
      h2.commit();
    }
    h2.close();
    other.close();
    const forged = readFileSync(join(dir, 'other', 'logs', 'c1', 'main.jsonl'), 'utf8');
    expect(forged.split('\n').length).toBe(text.split('\n').length);
    writeFileSync(path, forged);
    ws = Workspace.open(dir);
    const r = ws.history('c1', 'main', { readOnly: true });
    expect(r.problems.map((p) => p.kind)).toEqual(['truncated']);
    expect(r.problems[0]!.message).toMatch(
      /^log rewritten: line 7 is not the commit the workspace database recorded \(hash [0-9a-f]{12}…\)$/,
    );
    r.close();
    expect(() => ws.history('c1')).toThrow(LogIntegrityError);
    const forced = ws.history('c1', 'main', { acceptDamage: true });
    expect(forced.problems.map((p) => p.kind)).toEqual(['truncated']);
    forced.close();
  });

  it('names why a write cannot happen: read-only, closed, or no history to read', () => {
    seed(1);
    const r = ws.history('c1', 'main', { readOnly: true });
    r.append({ kind: 'message', author: 'person', text: 'x' });
    expect(() => r.commit()).toThrow('conversation c1 agent main is open read-only');
    r.close();
    // After close the history itself refuses (tree/history.ts), before the store is reached.
    const w = ws.history('c1');
    w.close();
    expect(() => w.append({ kind: 'message', author: 'person', text: 'x' })).toThrow(
      'conversation c1 agent main is closed',
    );
    expect(() => ws.history('c2', 'main', { readOnly: true })).toThrow(
      `conversation c2 agent main has no history in ${dir}`,
    );
    // The failed read-only open took no lock and created nothing.
    expect(ws.conversation('c2')).toBeUndefined();
  });

  it('reindex counts histories, conversations and items, and skips names that are no ids', () => {
    seed(2, 'c1', 'main');
    seed(1, 'c1', 'helper');
    seed(3, 'c2', 'main');
    mkdirSync(join(dir, 'logs', '..bad'), { recursive: true });
    writeFileSync(join(dir, 'logs', 'c2', 'bad name.jsonl'), '');
    writeFileSync(join(dir, 'logs', 'c2', 'notes.txt'), '');
    writeFileSync(join(dir, 'logs', 'stray-file.jsonl'), '');
    const r = ws.reindex();
    expect(r).toMatchObject({ conversations: 2, histories: 3, items: 2 * 2 + 2 + 3 * 2, problems: [] });
    expect(r.skipped.sort()).toEqual(['logs/..bad', 'logs/c2/bad name.jsonl']);
    expect(ws.conversations()).toEqual(['c1', 'c2']);
    expect(ws.conversation('c1')!.agents).toEqual(['helper', 'main']);
  });

  it('forks into a new conversation with lineage, and refuses one that exists', () => {
    seed(1, 'c1');
    seed(1, 'c3');
    const h = ws.history('c1');
    const f = h.fork({ conversation: 'c2' });
    expect(ws.conversation('c2')!.forkedFrom).toEqual({ conversation: 'c1', agent: 'main', tip: h.tip });
    expect(ws.forksOf('c1')).toEqual(['c2']);
    expect(ws.forksOf('c3')).toEqual([]);
    f.close();
    expect(() => h.fork({ conversation: 'c3' })).toThrow(`fork: conversation c3 already exists in ${dir}`);
    h.close();
  });
});
