/**
 * `node --import tsx bench/inspector-big.ts [--items N]`: how the inspector holds up on a big history.
 *
 * Writes a workspace with one agent history of N items (default 100,000: 25,000 turns of a person
 * message, a tool call, its result and a model answer; every 1,000th turn leaves a side branch), starts
 * the real server and measures, once each (a measurement, not a test):
 * - API: the first tree page (cold: the log read and laid out), a page at the end (warm), a path page,
 *   the screen/wire views and a compaction preview of the whole path (not paged);
 * - Chromium (when installed): page load until the first tree rows are drawn, a jump to the last row,
 *   and how many rows are in the DOM (the list is virtualized, so it stays ~50 whatever N is).
 * Prints one JSON object.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startInspector } from '../src/inspector/index.js';
import { Workspace } from '../src/store/index.js';

const { values } = parseArgs({ options: { items: { type: 'string', default: '100000' } } });
const target = Number(values.items);
const dir = mkdtempSync(join(tmpdir(), 'gf-inspector-big-'));
const out: Record<string, unknown> = { items: target };

try {
  let t = performance.now();
  const ws = Workspace.open(dir);
  const h = ws.history('big');
  let turn = 0;
  while (h.items().length + 4 <= target) {
    const k = turn++;
    h.append({ kind: 'message', author: 'person', text: `step ${k}: run the tests of module ${k % 97}` });
    h.append({
      kind: 'tool_call',
      author: 'model',
      callId: `c${k}`,
      name: 'Bash',
      input: { command: `npm test -- m${k % 97}` },
    });
    h.append({
      kind: 'tool_result',
      author: 'machinery',
      callId: `c${k}`,
      name: 'Bash',
      content: [{ type: 'text', text: `ok ${k}: 12 passed` }],
    });
    h.append({ kind: 'message', author: 'model', text: `Module ${k % 97} passes (step ${k}).` });
    // Commit in batches of 25 turns: one fsync each, the same log a harness would leave.
    if (turn % 25 === 0) h.commit();
    if (turn % 1000 === 999 && !h.hasPending) {
      const back = h.tip!;
      h.append({ kind: 'message', author: 'person', text: `a side branch at step ${k}` });
      h.commit();
      h.branch(back);
    }
  }
  h.commit();
  out.written = h.items().length;
  out.logBytes = statSync(ws.logPath('big', 'main')).size;
  h.close();
  ws.close();
  out.writeMs = Math.round(performance.now() - t);

  const server = await startInspector({ workspace: dir, port: 0 });
  const api = `${server.url}api/c/big/main`;
  const timed = async (url: string): Promise<{ ms: number; bytes: number }> => {
    const t0 = performance.now();
    const body = await (await fetch(url)).text();
    return { ms: Math.round(performance.now() - t0), bytes: body.length };
  };
  out.treeFirstPageCold = await timed(`${api}/tree?limit=500`);
  out.treeFirstPageWarm = await timed(`${api}/tree?limit=500`);
  out.treeLastPageWarm = await timed(`${api}/tree?offset=${target - 500}&limit=500`);
  out.pathPage = await timed(`${api}/path?offset=${Math.floor(target / 2)}&limit=500`);
  out.pathPageAgain = await timed(`${api}/path?offset=${Math.floor(target / 2)}&limit=500`);
  out.conversations = await timed(`${server.url}api/conversations`);
  // Not paged: the whole request of the 100k-item path is built.
  out.viewsAnthropic = await timed(`${api}/views?provider=anthropic`);
  const t1 = performance.now();
  const preview = await fetch(`${api}/compact-preview`, {
    method: 'POST',
    headers: { 'x-glyphfold-token': server.csrfToken, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', budget: 150000 }),
  });
  const previewBody = await preview.text();
  out.compactPreview = {
    status: preview.status,
    ms: Math.round(performance.now() - t1),
    bytes: previewBody.length,
  };

  let executable: string | undefined;
  try {
    executable = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    out.browser = 'skipped: no chromium';
  }
  if (executable) {
    const browser = await chromium.launch({ executablePath: executable, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    t = performance.now();
    await page.goto(`${server.url}#/c/big/main`);
    await page.locator('[data-testid="tree-node"]').first().waitFor();
    out.browserFirstRowsMs = Math.round(performance.now() - t);
    t = performance.now();
    await page.getByTestId('tree').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.locator('[data-testid="tree-node"] .tag.tip').waitFor();
    out.browserJumpToEndMs = Math.round(performance.now() - t);
    out.domRows = await page.locator('[data-testid="tree-node"]').count();
    t = performance.now();
    await page.locator('[data-testid="tree-node"]').last().click();
    await page.getByTestId('path-summary').waitFor();
    out.browserSelectShowPathMs = Math.round(performance.now() - t);
    t = performance.now();
    await page.getByTestId('tab-views').click();
    await page.getByTestId('token-total').waitFor({ timeout: 120_000 });
    out.browserViewsMs = Math.round(performance.now() - t);
    t = performance.now();
    await page.getByTestId('tab-compact').click();
    await page.getByTestId('compact-budget').fill('150000');
    await page.getByTestId('compact-run').click();
    await page.getByTestId('compact-summary').waitFor({ timeout: 300_000 });
    out.browserCompactPreviewMs = Math.round(performance.now() - t);
    out.domRowsAfterPreview = await page.locator('.node').count();
    await browser.close();
  }
  await server.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
