/**
 * What PostgresStore guarantees beyond the conformance suite, against a real throwaway server: damage
 * in the stored lines is reported and refused, paging on load, a writer's lost connection (taken over
 * or not), migrations, and that `import 'glyphfold'` never loads the driver.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogIntegrityError, PG_MIGRATIONS, PostgresStore } from '../../src/store/postgres/index.js';
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
