/**
 * Issue 14: the inspector in a real headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against the real server on a temp workspace. Each action is done by clicking, then the store is
 * read back to check it changed as it should. Skipped, saying why, when no Chromium is installed
 * (`.ci/run` installs it). `GLYPHFOLD_SCREENSHOTS=1` also writes the screenshots in docs/inspector/.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInspector, type RunningInspector } from '../../src/inspector/index.js';
import { Workspace } from '../../src/store/index.js';
import { importTranscript } from '../../src/transcript/import/index.js';
import { buildFixture, type Fixture } from './fixture.js';
import { shrinkPng } from './shrink-png.js';

function findChromium(): string | undefined {
  const named = process.env.GLYPHFOLD_CHROMIUM;
  if (named) return named;
  for (const bin of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      return execFileSync('which', [bin], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const executable = findChromium();
// CI installs chromium (.ci/run): there a missing browser is a failure, not a skip.
const required = Boolean(process.env.CI);
if (!executable && !required)
  console.log(
    'inspector browser tests skipped: no chromium found (apt-get install chromium, or set GLYPHFOLD_CHROMIUM)',
  );
/** Polls wait up to 15 s: a CI machine shared with other builds can be slow to draw. */
const POLL = { timeout: 15_000 };
const SHOTS = process.env.GLYPHFOLD_SCREENSHOTS
  ? join(import.meta.dirname, '../../docs/inspector')
  : undefined;

describe.skipIf(!executable && !required)('the inspector in Chromium', () => {
  let dir: string;
  let fx: Fixture;
  let server: RunningInspector;
  let browser: Browser;
  let page: Page;

  const read = <T>(f: (ws: Workspace) => T): T => {
    const ws = Workspace.open(dir, { readOnly: true });
    try {
      return f(ws);
    } finally {
      ws.close();
    }
  };
  const tipOf = (conversation = 'c1') =>
    read((ws) => ws.history(conversation, 'main', { readOnly: true }).tip);
  const shot = async (name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
    shrinkPng(join(SHOTS, `${name}.png`));
  };
  const node = (id: string) => page.locator(`[data-testid="tree-node"][data-id="${id}"]`);

  beforeAll(async () => {
    if (!executable) throw new Error('CI=true but no chromium was found: .ci/run installs it with apt-get');
    dir = mkdtempSync(join(tmpdir(), 'gf-inspector-'));
    fx = buildFixture(dir);
    server = await startInspector({ workspace: dir, port: 0 });
    browser = await chromium.launch({ executablePath: executable!, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists conversations and finds one by text', async () => {
    await page.goto(server.url);
    await expect.poll(() => page.locator('[data-conversation="c1"]').count(), POLL).toBe(1);
    await expect
      .poll(() => page.getByTestId('conversations').textContent(), POLL)
      .toContain(`main (${fx.items}, 15)`);
    await page.getByTestId('search').fill('prefix them with an underscore');
    await expect
      .poll(() => page.getByTestId('conversation-count').textContent(), POLL)
      .toMatch(/^1 conversation matching/);
    await shot('conversations');
    await page.getByTestId('search').fill('no such text anywhere');
    await expect
      .poll(() => page.getByTestId('conversation-count').textContent(), POLL)
      .toMatch(/^0 conversations/);
  });

  it('draws the tree with the tip, the checkpoint and both branches', async () => {
    await page.goto(`${server.url}#/c/c1/main`);
    await expect
      .poll(() => page.getByTestId('tree-summary').textContent(), POLL)
      .toContain(`${fx.items} items`);
    await expect.poll(() => node(fx.tipB).textContent(), POLL).toContain('tip');
    expect(await node(fx.fork).textContent()).toContain('read');
    expect(await node(fx.leafA).getAttribute('class')).not.toContain('active');
    await node(fx.leafA).click();
    await expect.poll(() => page.getByTestId('selected').textContent(), POLL).toBe(fx.leafA);
    await expect
      .poll(() => page.getByTestId('path-summary').textContent(), POLL)
      .toContain(`${fx.items - 3} items`);
    await shot('tree');
  });

  it('switches branch: the tip moves in the store, no item is written', async () => {
    await page.goto(`${server.url}#/c/c1/main`);
    await node(fx.leafA).click();
    await page.getByTestId('switch-branch').click();
    await expect.poll(() => page.getByTestId('status').textContent(), POLL).toBe(`tip moved to ${fx.leafA}`);
    expect(tipOf()).toBe(fx.leafA);
    expect(read((ws) => ws.history('c1', 'main', { readOnly: true }).items().length)).toBe(fx.items);
    await expect.poll(() => node(fx.leafA).textContent(), POLL).toContain('tip');
  });

  it('forks from a node that is not the tip; the original tip stays', async () => {
    await page.goto(`${server.url}#/c/c1/main`);
    await node(fx.fork).click();
    await page.getByTestId('fork').click();
    await expect
      .poll(() => page.getByTestId('status').textContent(), POLL)
      .toMatch(/^forked \d+ items into c_/);
    const forked = /into (c_[0-9a-f]+)/.exec((await page.getByTestId('status').textContent())!)![1]!;
    const info = read((ws) => ws.conversation(forked));
    expect(info?.forkedFrom).toEqual({ conversation: 'c1', agent: 'main', tip: fx.fork });
    const copied = read((ws) =>
      ws
        .history(forked, 'main', { readOnly: true })
        .path()
        .map((i) => i.kind),
    );
    const original = read((ws) =>
      ws
        .history('c1', 'main', { readOnly: true })
        .pathTo(fx.fork)
        .map((i) => i.kind),
    );
    expect(copied).toEqual(original);
    expect(tipOf()).toBe(fx.leafA);
    await expect.poll(() => node(fx.fork).textContent(), POLL).toContain(`fork → ${forked}`);
  });

  it('sets a checkpoint at the tip and rewinds to another, showing the digest it keeps', async () => {
    await page.goto(`${server.url}#/c/c1/main`);
    await expect.poll(() => page.getByTestId('tree-summary').textContent(), POLL).toContain('1 checkpoints');
    await page.getByTestId('checkpoint-label').fill('after-A');
    await page.getByTestId('checkpoint').click();
    await expect
      .poll(() => page.getByTestId('status').textContent(), POLL)
      .toBe(`checkpoint after-A at ${fx.leafA}`);
    const cps = read((ws) => ws.history('c1', 'main', { readOnly: true }).checkpoints());
    expect(cps.map((c) => [c.label, c.at])).toEqual([
      ['read', fx.fork],
      ['after-A', fx.leafA],
    ]);
    await page.getByTestId('rewind-label').selectOption('read');
    await expect
      .poll(() => page.getByTestId('rewind-preview').textContent(), POLL)
      .toContain('abandons 2 items');
    const shown = (await page.locator('[data-testid="rewind-preview"] pre').textContent())!;
    await shot('rewind');
    await page.getByTestId('rewind').click();
    await expect
      .poll(() => page.getByTestId('status').textContent(), POLL)
      .toMatch(/^rewound to read: 2 items abandoned/);
    const h = read((ws) => {
      const hist = ws.history('c1', 'main', { readOnly: true });
      return { tip: hist.get(hist.tip!)! };
    });
    expect(h.tip.kind).toBe('digest');
    expect(h.tip.parent).toBe(fx.fork);
    expect((h.tip as { text: string }).text).toBe(shown);
  });

  it("shows the store's own error when another writer holds the history", async () => {
    await page.goto(`${server.url}#/c/c1/main`);
    await expect.poll(() => page.getByTestId('tree-summary').textContent(), POLL).toContain('items');
    const ws = Workspace.open(dir);
    const held = ws.history('c1');
    try {
      await page.getByTestId('checkpoint-label').fill('while-held');
      await page.getByTestId('checkpoint').click();
      await expect
        .poll(() => page.getByTestId('error').textContent(), POLL)
        .toMatch(/^checkpoint: conversation c1 agent main is open for writing by process \d+/);
    } finally {
      held.close();
      ws.close();
    }
    expect(
      read((ws2) =>
        ws2
          .history('c1', 'main', { readOnly: true })
          .checkpoints()
          .map((c) => c.label),
      ),
    ).not.toContain('while-held');
  });

  it('exports a branch that is not the tip; it re-imports to the same items', async () => {
    await page.goto(`${server.url}#/c/c1/main`);
    await node(fx.tipB).click();
    await page.getByTestId('tab-export').click();
    await expect.poll(() => page.getByTestId('export-info').textContent(), POLL).toMatch(/^\d+ items/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-download').click(),
    ]);
    const file = join(dir, 'b.jsonl');
    await download.saveAs(file);
    const back = importTranscript(await import('node:fs').then((fs) => fs.readFileSync(file, 'utf8')), {
      format: 'glyphfold',
    });
    const want = read((ws) => ws.history('c1', 'main', { readOnly: true }).pathTo(fx.tipB));
    expect(tipOf()).not.toBe(fx.tipB);
    expect(back.items.map(({ id: _i, parent: _p, ...rest }) => rest)).toEqual(
      want.map(({ id: _i, parent: _p, ...rest }) => rest),
    );
    await page.getByTestId('export-format').selectOption('claude-code');
    await expect
      .poll(() => page.getByTestId('export-text').textContent(), POLL)
      .toContain('"sessionId":"c1"');
    await shot('export');
  });

  it('shows screen and wire side by side with the pairing repair and the token bars', async () => {
    await page.goto(`${server.url}#/c/c1/main/${fx.tipB}`);
    await node(fx.tipB).click();
    await page.getByTestId('tab-views').click();
    await expect.poll(() => page.getByTestId('repairs').textContent(), POLL).toContain('synthesized_result');
    expect(await page.locator('.wire-entry.repaired').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('screen').textContent()).toContain('Branch B: prefix them');
    expect(await page.getByTestId('token-bars').textContent()).toContain('machinery/tool_result');
    await shot('screen-vs-wire');
    await page.getByTestId('provider').selectOption('openai-chat');
    await expect
      .poll(() => page.getByTestId('wire').textContent(), POLL)
      .toContain('wire: openai-chat messages');
  });

  it('previews compaction without writing: rungs, bars, snapshot pages beside their decoded text', async () => {
    const before = read((ws) => ws.history('c1', 'main', { readOnly: true }).items().length);
    await page.goto(`${server.url}#/c/c1/main`);
    await page.getByTestId('tab-compact').click();
    await page.getByTestId('compact-budget').fill('8000');
    await page.getByTestId('compact-run').click();
    await expect.poll(() => page.getByTestId('rungs').textContent(), { timeout: 30_000 }).toContain('elide');
    expect(await page.getByTestId('compact-summary').textContent()).toMatch(/→ [\d,]+ tokens, fits/);
    expect(await page.locator('[data-testid="taken"] .r-snapshot').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="taken"] .r-elide').count()).toBeGreaterThan(0);
    const pages = page.getByTestId('snapshot-page');
    expect(await pages.count()).toBeGreaterThan(0);
    expect(
      await pages
        .first()
        .locator('img')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
    ).toBe(true);
    expect(await pages.first().locator('.decoded').textContent()).toContain('npm run lint -- src/module');
    expect(await page.getByTestId('legibility').textContent()).toMatch(/expected CER/);
    // Hovering a decoded line lays a band over its pixel rows on the page.
    await pages.first().locator('[data-line="3"]').hover();
    const band = await pages
      .first()
      .getByTestId('page-band')
      .evaluate((el) => [
        (el as unknown as { offsetTop: number }).offsetTop,
        (el as unknown as { offsetHeight: number }).offsetHeight,
      ]);
    expect(band[0]).toBeGreaterThan(0);
    expect(band[1]).toBeGreaterThan(0);
    expect(await pages.first().locator('.decoded .hl').getAttribute('data-line')).toBe('3');
    await pages.first().evaluate((el) => ((el as unknown as { scrollLeft: number }).scrollLeft = 0));
    await shot('compaction-pages');
    await page.getByTestId('compact-summary').scrollIntoViewIfNeeded();
    await shot('compaction-preview');
    expect(read((ws) => ws.history('c1', 'main', { readOnly: true }).items().length)).toBe(before);
  });

  it('refuses a cross-origin POST from another page in the browser', async () => {
    const tip = tipOf();
    const evil: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>other site</title>');
    });
    await new Promise<void>((ok) => evil.listen(0, '127.0.0.1', ok));
    const port = (evil.address() as { port: number }).port;
    try {
      const other = await browser.newPage();
      await other.goto(`http://localhost:${port}/`);
      const target = `${server.url}api/c/c1/main/branch`;
      // A form-like POST the browser may send cross-site (no preflight); its answer is opaque.
      const sent = await other.evaluate(
        async ([url, at]) => {
          try {
            await fetch(url!, {
              method: 'POST',
              mode: 'no-cors',
              headers: { 'content-type': 'text/plain' },
              body: JSON.stringify({ at }),
            });
            return 'sent';
          } catch (e) {
            return String(e);
          }
        },
        [target, fx.fork] as const,
      );
      expect(sent).toBe('sent');
      // With the token header the browser must preflight; the server never allows it.
      const preflighted = await other.evaluate(
        async ([url, at]) => {
          try {
            const r = await fetch(url!, {
              method: 'POST',
              headers: { 'x-glyphfold-token': 'guess' },
              body: JSON.stringify({ at }),
            });
            return String(r.status);
          } catch {
            return 'blocked';
          }
        },
        [target, fx.fork] as const,
      );
      expect(preflighted).toBe('blocked');
      await other.close();
    } finally {
      evil.close();
    }
    expect(tipOf()).toBe(tip);
  });
});

describe('the inspector API without a browser', () => {
  let dir: string;
  let fx: Fixture;
  let server: RunningInspector;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gf-inspector-api-'));
    fx = buildFixture(dir);
    server = await startInspector({ workspace: dir, port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-glyphfold-token': server.csrfToken, ...headers },
      body: JSON.stringify(body),
    });

  it('refuses a cross-origin or tokenless POST, and another Host', async () => {
    const evil = await post('api/c/c1/main/branch', { at: fx.fork }, { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: { message: string } }).error.message).toMatch(/cross-origin/);
    const noToken = await fetch(server.url + 'api/c/c1/main/branch', { method: 'POST', body: '{}' });
    expect(noToken.status).toBe(403);
    // fetch() will not send another Host; node:http will (as a DNS-rebound browser would).
    const rebound = await new Promise<number>((ok, fail) =>
      request(
        server.url + 'api/conversations',
        { headers: { host: `evil.example:${new URL(server.url).port}` } },
        (res) => {
          res.resume();
          ok(res.statusCode ?? 0);
        },
      )
        .on('error', fail)
        .end(),
    );
    expect(rebound).toBe(421);
    const page = await fetch(server.url);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    expect(read(dir).tip).toBe(fx.tipB);
  });

  it('answers bad input with a 4xx naming what was wrong', async () => {
    const cases: [Response, number, RegExp][] = [
      [await post('api/c/c1/main/branch', { at: 'it_nope' }), 400, /branch: no item it_nope/],
      [
        await post('api/c/c1/main/checkpoint', { label: 7 }),
        400,
        /"label": expected a non-empty string, found 7/,
      ],
      [await post('api/c/c1/main/rewind', { label: 'nope' }), 400, /no checkpoint 'nope'.*known: read/],
      [await fetch(server.url + 'api/c/c9/main/tree'), 404, /no conversation c9/],
      [await fetch(server.url + 'api/c/..%2Fetc/main/tree'), 400, /conversation/],
      [await fetch(server.url + 'api/c/c1/main/export?format=csv'), 400, /format: expected one of glyphfold/],
      [await fetch(server.url + 'api/c/c1/main/tree?limit=99999'), 400, /limit: expected an integer 0-2000/],
      [
        await post('api/c/c1/main/compact-preview', { model: 'claude-sonnet-4-5', budget: 5 }),
        400,
        /budget.*>= 1000/,
      ],
    ];
    for (const [r, status, message] of cases) {
      expect(r.status, message.source).toBe(status);
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(message);
    }
    expect(read(dir).tip).toBe(fx.tipB);
  });

  it('meets the writer lock as the CLI does (409) and --read-only refuses changes (403)', async () => {
    const ws = Workspace.open(dir);
    const held = ws.history('c1');
    try {
      const r = await post('api/c/c1/main/checkpoint', { label: 'x' });
      expect(r.status).toBe(409);
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/open for writing/);
    } finally {
      held.close();
      ws.close();
    }
    const ro = await startInspector({ workspace: dir, port: 0, readOnly: true });
    try {
      const r = await fetch(ro.url + 'api/c/c1/main/checkpoint', {
        method: 'POST',
        headers: { 'x-glyphfold-token': ro.csrfToken },
        body: '{"label":"x"}',
      });
      expect(r.status).toBe(403);
      expect((await fetch(ro.url + 'api/c/c1/main/tree?limit=1')).status).toBe(200);
    } finally {
      await ro.close();
    }
  });

  it('needs the access token on a non-loopback bind', async () => {
    const exposed = await startInspector({ workspace: dir, port: 0, host: '0.0.0.0', readOnly: true });
    try {
      const url = new URL(exposed.url);
      const access = url.searchParams.get('access');
      expect(access).toMatch(/^[0-9a-f]{48}$/);
      const bare = `http://127.0.0.1:${url.port}/`;
      expect((await fetch(bare + 'api/conversations')).status).toBe(401);
      const first = await fetch(`${bare}?access=${access}`);
      expect(first.status).toBe(200);
      const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
      expect((await fetch(bare + 'api/conversations', { headers: { cookie } })).status).toBe(200);
    } finally {
      await exposed.close();
    }
  });

  for (const command of ['inspect', 'serve'] as const)
    it(`glyphfold ${command} --workspace serves the page and the API${command === 'serve' ? ' beside /v1/' : ''}, and stops on SIGTERM`, async () => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', command, '--workspace', dir, '--port', '0'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      try {
        let out = '';
        child.stdout.setEncoding('utf8');
        const url = await new Promise<string>((ok, fail) => {
          child.stdout.on('data', (c: string) => {
            out += c;
            const m = /inspector on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
            if (m) ok(m[1]!);
          });
          child.once('exit', (code) => fail(new Error(`${command} exited early with ${code}: ${out}`)));
        });
        const page = await fetch(url);
        expect(await page.text()).toContain('<script type="module" src="/app.js"></script>');
        expect((await fetch(url + 'app.js')).status).toBe(200);
        const list = (await (await fetch(url + 'api/conversations')).json()) as {
          conversations: { id: string }[];
        };
        expect(list.conversations.map((c) => c.id)).toContain('c1');
        expect((await fetch(url + 'v1/health')).status).toBe(command === 'serve' ? 200 : 404);
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        expect(((await exited) as [number | null])[0]).toBe(0);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });

  it('refuses a directory that holds no workspace, and creates nothing there', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'gf-inspector-empty-'));
    try {
      await expect(startInspector({ workspace: empty, port: 0 })).rejects.toThrow(/no glyphfold workspace/);
      expect(existsSync(join(empty, 'logs'))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

function read(dir: string) {
  const ws = Workspace.open(dir, { readOnly: true });
  try {
    return { tip: ws.history('c1', 'main', { readOnly: true }).tip };
  } finally {
    ws.close();
  }
}
