/**
 * What PostgresStore guarantees beyond the conformance suite, against a real throwaway server: damage
 * in the stored lines is reported and refused, paging on load, a writer's lost connection (taken over
 * or not), migrations, and that `import 'glyphfold'` never loads the driver.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogIntegrityError, PG_MIGRATIONS, PostgresStore } from '../../src/store/postgres/index.js';
import { Workspace } from '../../src/store/workspace.js';
import { HistoryLockedError } from '../../src/tree/backend.js';
import { startCluster, type PgCluster } from './pg-cluster.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cluster = await startCluster();
if (typeof cluster === 'string') console.warn(cluster);

describe.skipIf(typeof cluster === 'string')('PostgresStore', () => {
  const c = cluster as PgCluster;
  let admin: pg.Client;
  let n = 0;
  const stores: PostgresStore[] = [];
  const fresh = (schema = `s${n++}`, extra: { loadBatch?: number } = {}): PostgresStore => {
    const s = new PostgresStore({ connectionString: c.url, schema, ...extra });
    stores.push(s);
    return s;
  };
  beforeAll(async () => {
    admin = new pg.Client(c.url);
    await admin.connect();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.end();
    c.stop();
  });

  it('reports a line altered in the table and refuses to write on top of it', async () => {
    const store = fresh('tamper');
    const h = await store.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'hello' });
    await h.commit();
    h.append({ kind: 'message', author: 'model', text: 'hi' });
    await h.commit();
    await h.close();
    await admin.query(`UPDATE tamper.entries SET body = replace(body, 'hello', 'HELLO') WHERE line = 2`);
    await expect(store.history('c1')).rejects.toThrow(LogIntegrityError);
    const r = await store.history('c1', 'main', { readOnly: true });
    expect(r.problems.map((p) => p.kind)).toContain('chain');
    await expect(r.commit()).resolves.toEqual([]); // nothing pending: nothing to write
    r.append({ kind: 'message', author: 'person', text: 'x' });
    await expect(r.commit()).rejects.toThrow(/read-only/);
    await r.close();
  });

  it('reports whole turns cut off the end (the row remembers the committed count)', async () => {
    const store = fresh('cut');
    const h = await store.history('c1');
    for (const text of ['one', 'two', 'three']) {
      h.append({ kind: 'message', author: 'person', text });
      await h.commit();
    }
    await h.close();
    const { rows } = await admin.query<{ m: number }>(`SELECT max(line) AS m FROM cut.entries`);
    await admin.query(`DELETE FROM cut.entries WHERE line >= $1`, [rows[0]!.m - 1]); // the last unit
    const r = await store.history('c1', 'main', { readOnly: true });
    expect(r.problems.map((p) => p.kind)).toEqual(['truncated']);
    expect(r.path().map((i) => ('text' in i ? i.text : ''))).toEqual(['one', 'two']);
    await r.close();
    await expect(store.history('c1')).rejects.toThrow(/truncated/);
  });

  it('loads a history in pages of loadBatch lines, the same as in one', async () => {
    const store = fresh('paged', { loadBatch: 7 });
    const h = await store.history('c1');
    for (let i = 0; i < 40; i++) {
      h.append({ kind: 'message', author: 'person', text: `q${i}` });
      h.append({ kind: 'message', author: 'model', text: `a${i}` });
      await h.commit();
    }
    const before = JSON.stringify(h.path());
    await h.close();
    const again = await store.history('c1');
    expect(again.problems).toEqual([]);
    expect(JSON.stringify(again.path())).toBe(before);
    expect(again.items()).toHaveLength(80);
    await again.close();
  });

  it('reconnects a writer whose connection was cut, and keeps writing', async () => {
    const store = fresh('cutconn');
    const h = await store.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'before' });
    await h.commit();
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'postgres' AND pid <> pg_backend_pid()`,
    );
    expect(killed.rowCount).toBeGreaterThan(0);
    h.append({ kind: 'message', author: 'person', text: 'after' });
    await h.commit();
    await h.close();
    const r = await store.history('c1', 'main', { readOnly: true });
    expect(r.path().map((i) => ('text' in i ? i.text : ''))).toEqual(['before', 'after']);
    await r.close();
  });

  it('fails a write with HistoryLockedError when another writer took the history while it was cut off', async () => {
    const a = fresh('takeover');
    const b = fresh('takeover');
    const h = await a.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'from a' });
    await h.commit();
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'postgres' AND pid <> pg_backend_pid()`,
    );
    const other = await b.history('c1'); // the lock went with a's connection
    other.append({ kind: 'message', author: 'person', text: 'from b' });
    await other.commit();
    h.append({ kind: 'message', author: 'person', text: 'a again' });
    await expect(h.commit()).rejects.toThrow(HistoryLockedError);
    await other.close();
    await h.close();
  });

  it('migrates once, records the version, and refuses a schema newer than the code', async () => {
    const store = fresh('mig');
    await Promise.all([store.migrate(), fresh('mig').migrate(), fresh('mig').migrate()]);
    const { rows } = await admin.query<{ version: number }>(
      'SELECT version FROM mig.migrations ORDER BY version',
    );
    expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
    await admin.query('INSERT INTO mig.migrations (version) VALUES ($1)', [PG_MIGRATIONS.length + 1]);
    await expect(fresh('mig').conversations()).rejects.toThrow(/newer than this code knows/);
  });

  it('moves a history from a folder to the database and back, byte for byte', async () => {
    const src = mkdtempSync(join(tmpdir(), 'gf-pg-move-'));
    const back = mkdtempSync(join(tmpdir(), 'gf-pg-back-'));
    try {
      const file = join(src, 'a.txt');
      writeFileSync(file, 'original');
      const ws = Workspace.open(src);
      const h = ws.history('moved');
      h.append({ kind: 'message', author: 'person', text: 'look at this: é, 漢字, \u2028' });
      h.append({ kind: 'tool_call', author: 'model', callId: 't1', name: 'shot', input: { z: 1, a: [2] } });
      h.append({
        kind: 'tool_result',
        author: 'machinery',
        callId: 't1',
        name: 'shot',
        content: [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
      });
      h.commit();
      h.checkpoint('cp', { files: [file] });
      const [first] = h.path();
      h.append({ kind: 'message', author: 'model', text: 'abandoned' });
      h.commit();
      h.branch(first!.id);
      const path = JSON.stringify(h.path());
      h.close();
      const original = readFileSync(ws.logPath('moved', 'main'));
      const store = fresh('moves');
      const r = await store.importLog(createReadStream(ws.logPath('moved', 'main'), { highWaterMark: 64 }), {
        blobs: ws.blobs,
      });
      expect(r).toMatchObject({ conversation: 'moved', agent: 'main', items: 4, problems: [] });
      ws.close();
      // In the database: the same tree, and the checkpoint restores from the copied snapshot.
      const p = await store.history('moved');
      expect(JSON.stringify(p.path())).toBe(path);
      writeFileSync(file, 'changed');
      await p.restore('cp', { code: true });
      expect(readFileSync(file, 'utf8')).toBe('original');
      await p.close();
      await expect(store.importLog(original)).rejects.toThrow(/already has a history/);
      // And out again: the folder's bytes (a code-only restore writes nothing to the history).
      let text = '';
      for await (const line of store.exportLog('moved')) text += line;
      expect(Buffer.from(text).equals(original)).toBe(true);
      mkdirSync(join(back, 'logs', 'moved'), { recursive: true });
      writeFileSync(join(back, 'logs', 'moved', 'main.jsonl'), text);
      const ws2 = Workspace.open(back);
      const again = ws2.history('moved', 'main', { readOnly: true });
      expect(again.problems).toEqual([]);
      expect(again.items()).toHaveLength(4);
      again.close();
      ws2.close();
    } finally {
      rmSync(src, { recursive: true, force: true });
      rmSync(back, { recursive: true, force: true });
    }
  });

  it('refuses to import a damaged log, storing nothing', async () => {
    const store = fresh('baddump');
    const dir = mkdtempSync(join(tmpdir(), 'gf-pg-bad-'));
    try {
      const ws = Workspace.open(dir);
      const h = ws.history('bad');
      h.append({ kind: 'message', author: 'person', text: 'hello' });
      h.commit();
      h.close();
      ws.close();
      const text = readFileSync(join(dir, 'logs', 'bad', 'main.jsonl'), 'utf8').replace('hello', 'HELLO');
      await expect(store.importLog(text)).rejects.toThrow(/line 2: hash chain broken|damaged/);
      expect(await store.conversations()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is not loaded by the root import (the driver is an optional peer)', () => {
    const loaded = (entry: string): string =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createRequire } from 'node:module';
           await import(${JSON.stringify(entry)});
           const require = createRequire(import.meta.url);
           console.log(Object.keys(require.cache).some((k) => k.includes('/node_modules/pg/')));`,
        ],
        { cwd: repo, encoding: 'utf8' },
      ).trim();
    expect(loaded('glyphfold')).toBe('false');
    expect(loaded('glyphfold/store/postgres')).toBe('true');
  });
});
