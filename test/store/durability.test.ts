/**
 * Durability beyond SIGKILL (issue 18). A SIGKILL keeps the page cache, so the crash test cannot see a
 * missing fsync; this test traces the system calls of a real commit with strace and asserts their
 * presence and order on the files themselves (not on function names):
 *   creating a log:  write(tmp) → fsync(tmp) → rename(tmp, log) → fsync(directory)
 *   committing:      write(log, the turn) → fsync(log), before commit() returns
 *   storing a blob:  write(tmp) → fsync(tmp) → rename(tmp, blob) → fsync(shard) → fsync(blobs), new dirs
 * Skipped, with the reason, when strace is missing or not permitted (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChildren } from './child-build.js';
import { fdPath, parse, straceProblem, type Call } from './strace.js';

const problem = straceProblem();
if (problem) console.warn(`durability trace skipped: ${problem}`);

let build: ReturnType<typeof buildChildren>;
let dir: string;
beforeAll(() => {
  build = buildChildren();
  dir = mkdtempSync(join(tmpdir(), 'gf-durable-'));
});
afterAll(() => {
  build?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(problem !== undefined)('durability: the system calls of a real commit (strace)', () => {
  it('creates a log by write → fsync → rename → directory fsync, and commits by write → fsync', () => {
    const out = join(dir, 'trace.txt');
    const payload = `durable-payload-${process.pid}`;
    const r = spawnSync(
      'strace',
      [
        '-f',
        '-y',
        '-s',
        '256',
        '-e',
        'trace=openat,write,pwrite64,writev,fsync,fdatasync,rename,renameat,renameat2,ftruncate,close',
        '-o',
        out,
        process.execPath,
        build.script('commit-child'),
        join(dir, 'ws'),
        'c-1',
        payload,
      ],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const calls = parse(readFileSync(out, 'utf8'));
    const logDir = join(dir, 'ws', 'logs', 'c-1');
    const log = join(logDir, 'main.jsonl');
    const markAt = (what: string): number => {
      const i = calls.findIndex((c) => c.name === 'write' && c.args.includes(`MARK ${what}\\n`));
      expect(i, `marker ${what}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const ok = (c: Call): boolean => !c.result.startsWith('-1');

    // Creating the log: the header goes to a file beside it, is synced, renamed over, and the directory synced.
    const create = calls.slice(markAt('create-begin'), markAt('create-end'));
    const tmpWrite = create.findIndex(
      (c) => c.name === 'write' && ok(c) && fdPath(c)?.startsWith(`${log}.new-`) && c.args.includes('header'),
    );
    expect(tmpWrite, 'header written to the side file').toBeGreaterThanOrEqual(0);
    const tmp = fdPath(create[tmpWrite]!)!;
    const tmpSync = create.findIndex(
      (c, i) => i > tmpWrite && /^f(data)?sync$/.test(c.name) && ok(c) && fdPath(c) === tmp,
    );
    expect(tmpSync, 'side file fsynced after the write').toBeGreaterThan(tmpWrite);
    const rename = create.findIndex(
      (c) => /^rename/.test(c.name) && ok(c) && c.args.includes(`"${tmp}"`) && c.args.includes(`"${log}"`),
    );
    expect(rename, 'renamed over the log after the fsync').toBeGreaterThan(tmpSync);
    const dirSync = create.findIndex(
      (c, i) => i > rename && c.name === 'fsync' && ok(c) && fdPath(c) === logDir,
    );
    expect(dirSync, 'directory fsynced after the rename').toBeGreaterThan(rename);

    // Committing: the turn is written to the log and the log is synced before commit() returns.
    const commit = calls.slice(markAt('commit-begin'), markAt('commit-end') + 1);
    const writes = commit.filter((c) => /^(p?write|writev)/.test(c.name) && fdPath(c) === log);
    expect(writes.length, 'the turn goes to the log in one write').toBe(1);
    expect(writes[0]!.args).toContain(payload.slice(0, 16));
    // The write's byte count is all of the log after its header: the items and the commit mark at once.
    const text = readFileSync(log, 'utf8');
    const header = text.indexOf('\n') + 1;
    expect(Number(writes[0]!.result)).toBe(Buffer.byteLength(text.slice(header)));
    expect(JSON.parse(text.trimEnd().split('\n').pop()!)).toMatchObject({ t: 'commit', turn: 1 });
    const wi = commit.indexOf(writes[0]!);
    const si = commit.findIndex(
      (c, i) => i > wi && /^f(data)?sync$/.test(c.name) && ok(c) && fdPath(c) === log,
    );
    expect(si, 'log fsynced after the write').toBeGreaterThan(wi);
    expect(si).toBeLessThan(commit.length - 1); // before the commit-end marker: commit() waited for it
    // Nothing reaches the log after its fsync within the commit.
    expect(
      commit.slice(si + 1).some((c) => /^(p?write|writev|ftruncate)/.test(c.name) && fdPath(c) === log),
    ).toBe(false);

    // A checkpoint's file snapshot: written aside, synced, renamed, and the new names made durable.
    const blob = calls.slice(markAt('blob-begin'), markAt('blob-end'));
    const blobs = join(dir, 'ws', 'blobs');
    const bw = blob.findIndex((c) => c.name === 'write' && ok(c) && fdPath(c)?.startsWith(blobs));
    expect(bw, 'blob written to a side file').toBeGreaterThanOrEqual(0);
    const btmp = fdPath(blob[bw]!)!;
    expect(btmp).toMatch(/\.tmp-\d+$/);
    const bsync = blob.findIndex((c, i) => i > bw && /^f(data)?sync$/.test(c.name) && fdPath(c) === btmp);
    expect(bsync, 'blob fsynced after the write').toBeGreaterThan(bw);
    const brename = blob.findIndex((c) => /^rename/.test(c.name) && ok(c) && c.args.includes(`"${btmp}"`));
    expect(brename, 'renamed after the fsync').toBeGreaterThan(bsync);
    const shard = btmp.slice(0, btmp.lastIndexOf('/'));
    const synced = blob
      .slice(brename + 1)
      .filter((c) => c.name === 'fsync' && ok(c))
      .map(fdPath);
    // The shard holds the new name; blobs/ holds the new shard, the workspace the new blobs/.
    expect(synced).toEqual([shard, blobs, join(dir, 'ws')]);
  });
});
