/**
 * A log past 512 MiB (the largest string V8 builds, which the old whole-file read needed) opens again,
 * streamed. Opt-in (`GLYPHFOLD_BIG_LOG=1`): it writes ~600 MB to the temp directory. The child that
 * opens it reports its peak RSS; an open history still holds its items in memory, so memory grows with
 * the log (docs/store.md: the `maxLogBytes` limit is the bound, there is no segment rotation).
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
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'test/adversarial/fixtures/open-log.ts', dir, 'big'],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(out) as { items: number; turn: number; problems: number; maxRssBytes: number };
    expect(r).toMatchObject({ items: TURNS, turn: TURNS, problems: 0 });
    console.log(
      `big log: ${(size / 2 ** 20).toFixed(0)} MiB opened with peak RSS ${(r.maxRssBytes / 2 ** 20).toFixed(0)} MiB`,
    );
  }, 900_000);
});
