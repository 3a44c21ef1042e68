/**
 * The history conformance suite on PostgreSQL: the same cases as memory and the folder workspace. Each
 * case gets a schema of its own in a throwaway cluster started here (skipped, with the reason printed,
 * where no PostgreSQL server is installed; never in CI).
 */
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/index.js';
import { historyConformance } from '../tree/history.case.js';
import { startCluster } from './pg-cluster.js';

const cluster = await startCluster();
if (typeof cluster === 'string') {
  console.warn(cluster);
  describe.skip('history conformance: PostgreSQL', () => {});
} else {
  afterAll(() => cluster.stop());
  let n = 0;
  const fixture = (options: { retainBytes?: number }) => () => {
    const schema = `conf_${process.pid}_${n++}`;
    return {
      create: () => new PostgresStore({ connectionString: cluster.url, schema, ...options }),
      reopen: () => new PostgresStore({ connectionString: cluster.url, schema, ...options }),
      cleanup: async () => {
        const c = new pg.Client(cluster.url);
        await c.connect();
        await c.query(`DROP SCHEMA ${schema} CASCADE`);
        await c.end();
      },
    };
  };
  historyConformance('PostgreSQL', fixture({}));
  // The same suite with no item kept in memory: every item the tree hands out is read back from the
  // table (by line, checked against its hash), so the lazy path is held to what the in-memory one does.
  historyConformance('PostgreSQL, items read back from the table', fixture({ retainBytes: 0 }));
}
