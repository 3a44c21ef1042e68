/**
 * A PostgreSQL history opens from its index (hash, prev, item id, parent per line) and keeps at most
 * `retainBytes` of item bodies; the others are read back from the table by line and checked against
 * the hash they were indexed with. Also: a schema made by version 1 (bodies only) is migrated and
 * indexed, and (opt-in, GLYPHFOLD_BIG_LOG=1, which .ci/run sets) a history of 300 screenshots of
 * 2 MB (600 MB) opens in < 200 MB peak RSS, for writing and for reading, and a walk through every
 * body stays < 300 MB.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS, PostgresStore } from '../../src/store/postgres/index.js';
import type { Item } from '../../src/transcript/items.js';
import type { AgentHistory } from '../../src/tree/history.js';
import { startCluster, type PgCluster } from './pg-cluster.js';
import { bashTurn } from './bash-turn.js';
import { bundleChild } from '../helpers/bundle-child.js';

const cluster = await startCluster();
if (typeof cluster === 'string') console.warn(cluster);
else afterAll(() => cluster.stop());
const text = (i: Item) => ('text' in i && typeof i.text === 'string' ? i.text : i.kind);

async function seed(h: AgentHistory<true>, turns: number): Promise<Item[]> {
  const all: Item[] = [];
  for (let t = 1; t <= turns; t++) {
    for (const item of bashTurn(t)) h.append(item);
    all.push(...(await h.commit()));
  }
  return all;
}

describe.skipIf(typeof cluster === 'string')('PostgreSQL items read back from the table', () => {
  const c = cluster as PgCluster;
  let admin: pg.Client;
  const stores: PostgresStore[] = [];
  const store = (schema: string, extra: { retainBytes?: number; verifyOnOpen?: boolean } = {}) => {
    const s = new PostgresStore({ connectionString: c.url, schema, ...extra });
    stores.push(s);
    return s;
  };
  const connectAdmin = async (): Promise<void> => {
    admin = new pg.Client(c.url);
    admin.on('error', () => {}); // a server restart ends it; the restart test connects again
    await admin.connect();
  };
  beforeAll(connectAdmin);
  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.end();
  });

  it('keeps the first retainBytes of bodies and reads the rest back, equal to what was written', async () => {
    const s = store('lazy_small', { retainBytes: 1000 });
    const w = await s.history('c1');
    const written = await seed(w, 20);
    await w.close();
    const h = await s.history('c1', 'main', { readOnly: true });
    expect(h.problems).toEqual([]);
    expect(h.itemCount).toBe(60);
    expect(h.path()).toEqual(written);
    expect(h.items()).toEqual(written);
    expect(h.get(written[59]!.id)).toEqual(written[59]);
    expect(h.children(written[3]!.id)).toEqual([written[4]]);
    // Closing the history releases nothing a reader needs while the store is open.
    await h.close();
    expect(h.path().map(text)).toEqual(written.map(text));
  });

  it('a row changed or removed under an open history is an error naming conversation, agent and item', async () => {
    const s = store('lazy_tamper', { retainBytes: 0 });
    const w = await s.history('c1');
    const written = await seed(w, 3);
    await w.close();
    const h = await s.history('c1', 'main', { readOnly: true });
    expect(h.get(written[3]!.id)).toEqual(written[3]);
    await admin.query(
      `UPDATE lazy_tamper.entries SET body = replace(body, 'question 2 ', 'question 9 ') WHERE item = $1`,
      [written[3]!.id],
    );
    expect(h.get(written[0]!.id)).toEqual(written[0]);
    expect(() => h.get(written[3]!.id)).toThrow(
      new RegExp(
        `^conversation c1 agent main: item ${written[3]!.id} \\(line \\d+ of "lazy_tamper"\\.entries\\): the row changed since the history was opened \\(sha256 [0-9a-f]{12}… expected, found [0-9a-f]{12}…\\)$`,
      ),
    );
    expect(() => h.path()).toThrow(/the row changed since the history was opened/);
    await admin.query(`DELETE FROM lazy_tamper.entries WHERE item = $1`, [written[6]!.id]);
    expect(() => h.get(written[6]!.id)).toThrow(
      new RegExp(`conversation c1 agent main: item ${written[6]!.id} \\(line \\d+ .*\\): the row is gone`),
    );
    await h.close();
    // Reopened: the server hashes each body (verifyOnOpen), so the edit is a break in the chain at a
    // known line, as in a folder log, and a writer refuses it.
    const again = await s.history('c1', 'main', { readOnly: true });
    // (the item after the removed one names a parent that is gone: a reference problem too)
    expect(again.problems.map((p) => p.kind)).toEqual(['chain', 'malformed', 'chain', 'reference']);
    await again.close();
    await expect(s.history('c1')).rejects.toThrow(/damaged; refusing to write/);
  });

  it('with verifyOnOpen false an altered body opens unreported and fails when it is read', async () => {
    const s = store('lazy_noverify', { retainBytes: 0 });
    const w = await s.history('c1');
    const written = await seed(w, 2);
    await w.close();
    await admin.query(
      `UPDATE lazy_noverify.entries SET body = replace(body, 'out 1', 'out 7') WHERE item = $1`,
      [written[2]!.id],
    );
    const quick = store('lazy_noverify', { retainBytes: 0, verifyOnOpen: false });
    const h = await quick.history('c1', 'main', { readOnly: true });
    expect(h.problems).toEqual([]);
    expect(h.get(written[1]!.id)).toEqual(written[1]);
    expect(() => h.get(written[2]!.id)).toThrow(/item .* the row changed since the history was opened/);
    await h.close();
    const checked = await s.history('c1', 'main', { readOnly: true });
    expect(checked.problems.map((p) => p.kind)).toEqual(['chain']);
    await checked.close();
  });

  it('a writer keeps no body past retainBytes: what it commits is read back, in this session and the next', async () => {
    const s = store('lazy_writer', { retainBytes: 0 });
    const h = await s.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'first' });
    const [first] = await h.commit();
    h.append({ kind: 'message', author: 'model', text: 'second' });
    await h.commit();
    await admin.query(
      `UPDATE lazy_writer.entries SET body = replace(body, 'second', 'SECOND') WHERE item IS NOT NULL`,
    );
    // Read back (not kept from the commit): the altered row is caught.
    expect(() => h.path()).toThrow(/the row changed since the history was opened/);
    await admin.query(
      `UPDATE lazy_writer.entries SET body = replace(body, 'SECOND', 'second') WHERE item IS NOT NULL`,
    );
    expect(h.path().map(text)).toEqual(['first', 'second']);
    await h.branch(first!.id);
    h.append({ kind: 'message', author: 'model', text: 'other' });
    await h.commit();
    expect(h.children(first!.id).map(text)).toEqual(['second', 'other']);
    await h.close();
    const again = await s.history('c1', 'main', { readOnly: true });
    expect(again.problems).toEqual([]);
    expect(again.path().map(text)).toEqual(['first', 'other']);
    await again.close();
  });

  it('reads back across a server restart (the reader connects again), and fails clearly once the store is closed', async () => {
    const s = store('lazy_restart', { retainBytes: 0 });
    const w = await s.history('c1');
    const written = await seed(w, 2);
    await w.close();
    const h = await s.history('c1', 'main', { readOnly: true });
    expect(h.get(written[0]!.id)).toEqual(written[0]); // the reader's connection is up
    c.restart(); // its connection ends with the server
    await admin.end().catch(() => {});
    await connectAdmin();
    expect(h.path()).toEqual(written.slice(0, 6));
    await h.close();
    await s.close();
    expect(() => h.get(written[1]!.id)).toThrow(
      new RegExp(
        `conversation c1 agent main: item ${written[1]!.id} .*: cannot be read back: PostgresStore is closed`,
      ),
    );
  });

  it('migrates a schema made by version 1 (bodies only), indexing its rows; damage stays reported', async () => {
    // The rows version 1 wrote: the same bodies (the line format did not change), without the index.
    const src = store('lazy_v2src');
    const w = await src.history('c1');
    const written = await seed(w, 4);
    await w.branch(written[5]!.id);
    await w.checkpoint('cp');
    w.append({ kind: 'message', author: 'person', text: 'on the branch' });
    written.push(...(await w.commit()));
    await w.close();
    const d = await src.history('c2');
    await seed(d, 2);
    await d.close();
    const expected = (await src.history('c1', 'main', { readOnly: true })).path();
    await admin.query(`CREATE SCHEMA lazy_v1; SET search_path TO lazy_v1`);
    await admin.query(PG_MIGRATIONS[0]!);
    await admin.query(`RESET search_path`);
    await admin.query(`CREATE TABLE lazy_v1.migrations (version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now());
      INSERT INTO lazy_v1.migrations (version) VALUES (1);
      INSERT INTO lazy_v1.conversations SELECT * FROM lazy_v2src.conversations;
      INSERT INTO lazy_v1.histories SELECT * FROM lazy_v2src.histories;
      INSERT INTO lazy_v1.entries (conversation, agent, line, body) SELECT conversation, agent, line, body FROM lazy_v2src.entries;
      INSERT INTO lazy_v1.checkpoints SELECT * FROM lazy_v2src.checkpoints;
      UPDATE lazy_v1.entries SET body = '{"t":"item","item":' WHERE conversation = 'c2' AND line = 3;`);
    const s = store('lazy_v1', { retainBytes: 0 });
    const h = await s.history('c1', 'main', { readOnly: true });
    expect(h.problems).toEqual([]);
    expect(h.path()).toEqual(expected);
    expect(h.checkpoints().map((cp) => cp.label)).toEqual(['cp']);
    await h.close();
    const { rows } = await admin.query<{ items: string; lines: string; same: string }>(
      `SELECT count(*) FILTER (WHERE n.item IS NOT NULL) AS items, count(*) AS lines,
              count(*) FILTER (WHERE n.hash = o.hash AND n.prev IS NOT DISTINCT FROM o.prev
                               AND n.item IS NOT DISTINCT FROM o.item AND n.parent IS NOT DISTINCT FROM o.parent) AS same
         FROM lazy_v1.entries n JOIN lazy_v2src.entries o USING (conversation, agent, line) WHERE conversation = 'c1'`,
    );
    // Every row got the index the current code writes.
    expect(rows[0]).toEqual({ items: String(written.length), lines: rows[0]!.lines, same: rows[0]!.lines });
    // The damaged row has no item id: it is read whole and reported, as version 1 reported it.
    const damaged = await s.history('c2', 'main', { readOnly: true });
    expect(damaged.problems.map((p) => `${p.kind}@${p.line}`)).toEqual([
      'malformed@3',
      'chain@4',
      'reference@4',
    ]);
    await damaged.close();
    // And the migrated history takes new turns.
    const more = await s.history('c1');
    more.append({ kind: 'message', author: 'person', text: 'after the migration' });
    await more.commit();
    expect(more.path().map(text).slice(-2)).toEqual(['on the branch', 'after the migration']);
    await more.close();
  });
});

// ---- memory: 300 screenshots of 2 MB ------------------------------------------------------------------

const RUN = process.env.GLYPHFOLD_BIG_LOG === '1';
// The cluster lives in the temp directory: 600 MB of data, as much again of WAL.
const free = (() => {
  const s = statfsSync(tmpdir());
  return s.bavail * s.bsize;
})();
const ROOM = free >= 3 * 1000 ** 3;
if (!RUN)
  console.log('postgres big history: skipped (opt-in: GLYPHFOLD_BIG_LOG=1 stores 600 MB in PostgreSQL)');
else if (!ROOM)
  console.log(
    `postgres big history: skipped: ${(free / 1000 ** 3).toFixed(1)} GB free in ${tmpdir()}, 3 GB needed`,
  );
const ITEMS = 300;
const IMAGE_CHARS = 2_000_000;
const LIMIT = 200 * 1000 ** 2;
/**
 * A walk holds one body at a time, but each body read back is a new 2 MB string that lives until V8's
 * next full collection, and V8 lets such garbage reach ~100 MB first: measured 193-237 MB here (the
 * folder store's same walk over the same 300 screenshots: 188-206 MB). Still under half the history.
 */
const WALK_LIMIT = 300 * 1000 ** 2;
const bundle = join('node_modules', '.cache', 'glyphfold-test', 'pg-open.mjs');
const mb = (n: number) => (n / 1000 ** 2).toFixed(0);

interface ChildResult {
  items: number;
  turn: number;
  problems: number;
  ms: number;
  walked?: number;
  imageChars?: number;
  walkMs?: number;
  committed?: number;
  maxRssBytes: number;
  error?: string;
}

describe.skipIf(typeof cluster === 'string' || !RUN || !ROOM)(
  'a PostgreSQL history of 300 screenshots of 2 MB',
  () => {
    const c = cluster as PgCluster;
    const child = (mode: 'write' | 'walk' | 'open'): ChildResult =>
      JSON.parse(
        execFileSync(process.execPath, [bundle, c.url, 'big_pg', mode], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ) as ChildResult;
    beforeAll(async () => {
      await bundleChild('test/store/fixtures/pg-open.ts', bundle);
      // Written through the store, one turn per screenshot (random data: PNGs do not compress).
      const s = new PostgresStore({ connectionString: c.url, schema: 'big_pg' });
      const h = await s.history('big');
      const noise = randomBytes((IMAGE_CHARS * 3) / 4).toString('base64');
      for (let i = 0; i < ITEMS; i++) {
        const tag = String(i).padStart(8, '0');
        h.append({
          kind: 'image',
          author: 'machinery',
          mediaType: 'image/png',
          data: tag + noise.slice(tag.length),
          text: `screenshot ${i}`,
        });
        await h.commit();
      }
      await h.close();
      await s.close();
    }, 900_000);

    it('opens for writing in < 200 MB peak RSS and takes another commit', () => {
      const w = child('write');
      expect(w.error).toBeUndefined();
      expect(w).toMatchObject({ items: ITEMS, turn: ITEMS, problems: 0, committed: ITEMS + 1 });
      console.log(
        `postgres big history: writer opened 600 MB of screenshots in ${w.ms} ms, peak RSS ${mb(w.maxRssBytes)} MB`,
      );
      expect(w.maxRssBytes).toBeLessThan(LIMIT);
    }, 900_000);

    it('opens for reading in < 200 MB and reads the path back body by body in < 300 MB peak RSS', () => {
      const o = child('open');
      expect(o.error).toBeUndefined();
      expect(o).toMatchObject({ items: ITEMS + 1, problems: 0 });
      console.log(`postgres big history: reader opened in ${o.ms} ms, peak RSS ${mb(o.maxRssBytes)} MB`);
      expect(o.maxRssBytes).toBeLessThan(LIMIT);
      const r = child('walk');
      expect(r.error).toBeUndefined();
      expect(r).toMatchObject({
        items: ITEMS + 1,
        problems: 0,
        walked: ITEMS + 1,
        imageChars: ITEMS * IMAGE_CHARS,
      });
      console.log(
        `postgres big history: reader opened in ${r.ms} ms, walked ${r.walked} items in ${r.walkMs} ms, peak RSS ${mb(r.maxRssBytes)} MB`,
      );
      expect(r.maxRssBytes).toBeLessThan(WALK_LIMIT);
    }, 900_000);
  },
);
