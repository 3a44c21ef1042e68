/** One writer per conversation-and-agent, across real processes; a dead writer's lock is taken over. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryLockedError } from '../../src/tree/backend.js';
import { Workspace } from '../../src/store/workspace.js';
import { buildChildren } from './child-build.js';

let build: ReturnType<typeof buildChildren>;
let dir: string;
beforeAll(() => {
  build = buildChildren();
  dir = mkdtempSync(join(tmpdir(), 'gf-lock-'));
});
afterAll(() => {
  build.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a lock child and resolves with its first line of output and the process. */
function start(conversation: string, agent = 'main'): Promise<{ child: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [build.script('lock-child'), dir, conversation, agent], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ child, line: out.slice(0, nl) });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`lock child exited (${code}) without output: ${err}`));
    });
  });
}
const exited = (child: ChildProcess): Promise<void> =>
  new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.on('exit', () => r()),
  );

describe('writer lock (real processes)', () => {
  it('gives a second writer a clear error naming the holder, in this process and in another', async () => {
    const holder = await start('c1');
    expect(holder.line).toBe(`locked ${holder.child.pid}`);
    const ws = Workspace.open(dir);
    try {
      expect(() => ws.history('c1')).toThrow(HistoryLockedError);
      expect(() => ws.history('c1')).toThrow(
        new RegExp(`conversation c1 agent main is open for writing by process ${holder.child.pid}`),
      );
      // Readers are not blocked, and another agent of the same conversation is another history.
      ws.history('c1', 'main', { readOnly: true }).close();
      ws.history('c1', 'helper').close();
      const second = await start('c1');
      expect(second.line).toMatch(new RegExp(`^error HistoryLockedError: .*by process ${holder.child.pid}`));
      await exited(second.child);
      expect(second.child.exitCode).toBe(3);
      // A clean release (stdin closes → the holder closes its history) frees it.
      holder.child.stdin!.end();
      await exited(holder.child);
      const h = ws.history('c1');
      h.close();
    } finally {
      ws.close();
    }
  });

  it('takes over the lock of a writer killed with SIGKILL (stale pid)', async () => {
    const holder = await start('c2');
    const lockFile = join(dir, 'logs', 'c2', 'main.lock');
    // pid, then (on Linux) the process start time that tells it from a later process with the same pid.
    expect(readFileSync(lockFile, 'utf8').trim()).toMatch(new RegExp(`^${holder.child.pid}( \\d+)?$`));
    holder.child.kill('SIGKILL');
    await exited(holder.child);
    expect(existsSync(lockFile)).toBe(true); // nobody cleaned up
    const ws = Workspace.open(dir);
    try {
      const h = ws.history('c2');
      expect(readFileSync(lockFile, 'utf8').trim()).toMatch(new RegExp(`^${process.pid}( \\d+)?$`));
      h.close();
      expect(existsSync(lockFile)).toBe(false);
    } finally {
      ws.close();
    }
  });
});
