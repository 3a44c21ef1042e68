/**
 * A log past 512 MiB (the largest string V8 builds, which the old whole-file read needed) opens again,
 * streamed. Opt-in (`GLYPHFOLD_BIG_LOG=1`): it writes ~600 MB to the temp directory. Children report
 * their peak RSS: `reindex` keeps item ids only and stays under 200 MiB; an open history still holds
 * its items in memory, so that grows with the log (docs/store.md: `maxLogBytes` is the bound, there is
 * no segment rotation).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/index.js';

const RUN = process.env.GLYPHFOLD_BIG_LOG === '1';
const TURNS = 600;
const ITEM_BYTES = 1 << 20;

const dir = mkdtempSync(join(tmpdir(), 'gf-biglog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!RUN)('a log larger than the largest string', () => {
  it(`${TURNS} turns of 1 MiB items: every commit succeeds and the log opens again`, () => {
    const ws = Workspace.open(dir, { maxLogBytes: 2 * 1024 ** 3 });
    const h = ws.history('big');
    const filler = 'q'.repeat(ITEM_BYTES);
    for (let i = 0; i < TURNS; i++) {
      h.append({ kind: 'message', author: 'person', text: `${i} ${filler}` });
      h.commit();
    }
    h.close();
    ws.close();
    const size = statSync(join(dir, 'logs', 'big', 'main.jsonl')).size;
    expect(size).toBeGreaterThan(0x1fffffe8);
    const child = (mode: string) =>
      JSON.parse(
        execFileSync(
          process.execPath,
          ['--import', 'tsx', 'test/adversarial/fixtures/open-log.ts', dir, 'big', mode],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        ),
      ) as { items: number; turn?: number; problems: number; maxRssBytes: number };
    const opened = child('open');
    expect(opened).toMatchObject({ items: TURNS, turn: TURNS, problems: 0 });
    // Reindex streams each log and keeps ids, not items: its memory does not grow with the log's bytes.
    const reindexed = child('reindex');
    expect(reindexed).toMatchObject({ items: TURNS, problems: 0 });
    expect(reindexed.maxRssBytes).toBeLessThan(200 * 2 ** 20);
    const mib = (n: number) => (n / 2 ** 20).toFixed(0);
    console.log(
      `big log: ${mib(size)} MiB; open peak RSS ${mib(opened.maxRssBytes)} MiB, reindex peak RSS ${mib(reindexed.maxRssBytes)} MiB`,
    );
  }, 900_000);
});
