import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalize } from '../../src/render/index.js';
import { runCli } from '../helpers/cli.js';

const run = (argv: string[], cwd: string, stdin = '', isTTY = false) => runCli(argv, { cwd, stdin, isTTY });

const root = fileURLToPath(new URL('../..', import.meta.url));
const text = 'fn main() {\r\n\tprintln!("héllo, wörld ─ 😀");\r\n}\n' + 'a long line '.repeat(300);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'glyphfold-cli-'));
  await writeFile(join(dir, 'in.txt'), text);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('glyphfold render / decode', () => {
  it('renders a file into page files and prints a summary; decode prints the text back', async () => {
    const r = await run(['render', 'in.txt', '--shape', '400x120', '--out', 'pages'], dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const files = (await readdir(join(dir, 'pages'))).sort();
    expect(files.length).toBeGreaterThan(1);
    expect(files[0]).toBe('page-001.png');
    expect(r.out).toMatch(new RegExp(`pages {7}${files.length} \\(400x120, cell 4x6, scale 1\\)`));
    expect(r.out).toMatch(/escapes {5}1\n/);
    const d = await run(['decode', 'pages'], dir);
    expect(d.code).toBe(0);
    expect(d.out).toBe(normalize(text) + '\n');
  });

  it('--jobs N renders on worker threads: the same page files as one thread', async () => {
    const one = await run(['render', 'in.txt', '--shape', '200x60', '--out', 'one'], dir);
    const two = await run(['render', 'in.txt', '--shape', '200x60', '--out', 'two', '--jobs', '2'], dir);
    expect([one.code, two.code, two.err]).toEqual([0, 0, '']);
    const files = (await readdir(join(dir, 'one'))).sort();
    expect((await readdir(join(dir, 'two'))).sort()).toEqual(files);
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) {
      expect(
        Buffer.compare(await readFile(join(dir, 'one', f)), await readFile(join(dir, 'two', f))),
        f,
      ).toBe(0);
    }
    const bad = await run(['render', 'in.txt', '--out', 'x', '--jobs', '0'], dir);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/--jobs expects an integer ≥ 1 or 'auto', found '0'/);
  });

  it('--json prints one object with pages and totals; stdin works; stale pages are removed', async () => {
    await run(['render', 'in.txt', '--shape', '200x60', '--out', 'json'], dir); // many pages
    const r = await run(
      ['render', '-', '--shape', '200x60', '--cell', '5x8', '--scale', '2', '--out', 'json', '--json'],
      dir,
      'hi\tthere',
    );
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out) as {
      pages: { file: string; width: number; height: number; chars: number }[];
      chars: number;
      escapes: number;
      bytes: number;
    };
    expect(summary.pages).toEqual([{ file: 'page-001.png', width: 200, height: 60, chars: 9 }]);
    expect(summary).toMatchObject({ chars: 9, escapes: 0 });
    expect(await readdir(join(dir, 'json'))).toEqual(['page-001.png']);
    expect(summary.bytes).toBe((await readFile(join(dir, 'json', 'page-001.png'))).length);
    const d = await run(['decode', 'json/page-001.png', '--cell', '5x8', '--scale', '2'], dir);
    expect(d.out).toBe('hi  there\n');
  });

  it('shows progress on a terminal for long runs only, and never on a pipe', async () => {
    const long = await run(['render', 'in.txt', '--shape', '40x24', '--out', 'tty'], dir, '', true);
    const pages = (await readdir(join(dir, 'tty'))).length;
    expect(pages).toBeGreaterThanOrEqual(20);
    expect(long.err).toContain(`\rrendering page ${pages}/${pages}`);
    expect((await run(['render', 'in.txt', '--shape', '40x24', '--out', 'pipe'], dir)).err).toBe('');
    expect((await run(['render', 'in.txt', '--out', 'short'], dir, '', true)).err).toBe('');
  });

  it('reports usage errors with exit code 2 and decode errors naming the file', async () => {
    const bad = await run(['render', 'in.txt', '--shape', 'big', '--out', 'x'], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--shape expects WxH in pixels \(e\.g\. 1568x784\), found 'big'/);
    expect(bad.err).toMatch(/usage: glyphfold render/);
    expect((await run(['render', 'in.txt'], dir)).err).toMatch(/--out DIR is required/);
    expect((await run(['render', 'in.txt', '--shape', '6x6', '--out', 'x'], dir)).err).toMatch(
      /shape 6x6 holds 1x1 cells of 4x6/,
    );
    const wrongCell = await run(['decode', 'pages', '--cell', '6x10'], dir);
    expect(wrongCell.code).toBe(1);
    expect(wrongCell.err).toMatch(/page-001\.png, row 1, column 1: the cell matches no 6x10 glyph/);
  });

  it('runs as the built binary (dist/cli/main.js, built by `npm test` through pretest)', () => {
    const bin = join(root, 'dist/cli/main.js');
    expect(existsSync(bin), 'dist/cli/main.js is missing: run `npm run build:ts`').toBe(true);
    const r = spawnSync(process.execPath, [bin, 'render', '--shape', '160x60', '--out', 'bin', '--json'], {
      cwd: dir,
      input: 'from a child process',
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ pages: [{ file: 'page-001.png' }], chars: 20 });
    const d = spawnSync(process.execPath, [bin, 'decode', 'bin'], { cwd: dir, encoding: 'utf8' });
    expect(d.stdout).toBe('from a child process\n');
  });
});
