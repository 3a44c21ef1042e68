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
  historyConformance('PostgreSQL', () => {
    const schema = `conf_${process.pid}_${n++}`;
    return {
      create: () => new PostgresStore({ connectionString: cluster.url, schema }),
      reopen: () => new PostgresStore({ connectionString: cluster.url, schema }),
      cleanup: async () => {
        const c = new pg.Client(cluster.url);
        await c.connect();
        await c.query(`DROP SCHEMA ${schema} CASCADE`);
        await c.end();
      },
    };
  });
}
