/** The logs are the source of truth: the database can be deleted and rebuilt from them. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/workspace.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gf-reindex-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('reindex', () => {
  it('rebuilds conversations, agents, tips, checkpoints and lineage from the logs', () => {
    let ws = Workspace.open(dir);
    const h = ws.history('c1');
    const [q] = [h.append({ kind: 'message', author: 'person', text: 'q' })];
    h.commit();
    h.checkpoint('cp1');
    h.append({ kind: 'message', author: 'model', text: 'a' });
    h.commit();
    h.branch(q!.id);
    const fork = h.fork({ conversation: 'c1-copy' });
    const helper = ws.history('c1', 'helper');
    helper.append({ kind: 'message', author: 'person', text: 'h' });
    helper.commit();
    for (const x of [h, fork, helper]) x.close();
    const before = {
      c1: ws.conversation('c1'),
      copy: ws.conversation('c1-copy'),
      row: ws.historyRow('c1', 'main'),
    };
    ws.close();

    for (const f of ['workspace.db', 'workspace.db-wal', 'workspace.db-shm'])
      rmSync(join(dir, f), { force: true });
    mkdirSync(join(dir, 'logs', 'bad name!'));
    writeFileSync(join(dir, 'logs', 'c1', 'not..valid.jsonl'), '');
    ws = Workspace.open(dir);
    // A deleted database is rebuilt from the logs on first use: no conversation is hidden.
    expect(ws.conversations()).toEqual(['c1', 'c1-copy']);
    const report = ws.reindex();
    expect(report).toMatchObject({ conversations: 2, histories: 3, items: 2 + 1 + 1, problems: [] });
    expect(report.skipped.sort()).toEqual(['logs/bad name!', 'logs/c1/not..valid.jsonl']);
    expect(ws.conversations()).toEqual(['c1', 'c1-copy']);
    expect(ws.conversation('c1')).toEqual(before.c1);
    expect(ws.conversation('c1-copy')).toEqual(before.copy);
    expect(ws.conversation('c1-copy')?.forkedFrom?.conversation).toBe('c1');
    expect(ws.forksOf('c1')).toEqual(['c1-copy']);
    expect(ws.historyRow('c1', 'main')).toEqual(before.row);
    expect(before.row?.tip).toBe(q!.id);
    const cps = ws.db.prepare('SELECT label, at FROM checkpoints WHERE conversation = ?').all('c1');
    expect(cps).toEqual([{ label: 'cp1', at: q!.id }]);
    ws.close();
  });

  it('indexes a conversation whose log exists but whose row does not, on first lookup', () => {
    let ws = Workspace.open(dir);
    ws.history('c9').close();
    ws.close();
    for (const f of ['workspace.db', 'workspace.db-wal', 'workspace.db-shm'])
      rmSync(join(dir, f), { force: true });
    ws = Workspace.open(dir);
    expect(ws.conversation('c9')?.agents).toEqual(['main']);
    expect(ws.conversation('c10')).toBeUndefined();
    ws.close();
  });
});
