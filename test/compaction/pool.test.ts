/**
 * The ladder with a render pool (worker threads): snapshot texts of POOL_MIN_PAGES pages or more go
 * to the pool, and the request is the same bytes as without it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { englishProse } from '../../src/cli/prose.js';
import {
  POOL_MIN_PAGES,
  prepareRequest,
  type CompactionOptions,
  type PagePool,
} from '../../src/compaction/index.js';
import { createRenderPool } from '../../src/render-node/index.js';
import { Builder } from './builder.js';

describe('compaction with a render pool', () => {
  const pool = createRenderPool({ size: 2 });
  afterAll(() => pool.close());

  it('renders large snapshot texts on the pool, and the request is the same bytes', async () => {
    // One long run between two person messages: one snapshot text of many pages.
    const b = new Builder();
    b.person('Task: summarize the service logs below. Do not touch the public API.');
    for (let t = 0; t < 40; t++) b.tool('bash', { cmd: `cat part${t}.log` }, englishProse(12_000 + 97 * t));
    b.person('Keep going.');
    const options: CompactionOptions = {
      model: 'claude-sonnet-4-5',
      budget: { window: 60_000 },
      rungs: ['snapshot'],
      cache: { firstCall: true },
    };
    const serial = await prepareRequest(b.items, options, true);
    const sent: number[] = [];
    const counting: PagePool = {
      render: async (text, o) => {
        const r = await pool.render(text, o);
        sent.push(r.pages.length);
        return r;
      },
    };
    const pooled = await prepareRequest(b.items, { ...options, pool: counting }, true);
    expect(serial.report.snapshot?.pages).toBeGreaterThanOrEqual(POOL_MIN_PAGES);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((n) => n >= POOL_MIN_PAGES)).toBe(true);
    expect(JSON.stringify(pooled.body)).toBe(JSON.stringify(serial.body));
    expect(pooled.records).toEqual(serial.records);
  });
});
