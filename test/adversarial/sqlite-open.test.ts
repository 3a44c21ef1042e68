/**
 * Why test/store/crash.test.ts failed now and then with "open failed: database is locked": several
 * writers opening a fresh workspace at once. Switching the new database to WAL needs an exclusive
 * lock; a connection that holds a shared lock while another holds a reserved one gets SQLITE_BUSY at
 * once (SQLite's deadlock avoidance skips the busy handler). Measured before the fix: 4 failures in
 * 1,600 concurrent first opens. Here the collision is made certain: this process holds the reserved
 * lock while a real child process opens the database, then lets go.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'gf-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('opening a fresh workspace database while another process holds a lock', () => {
  it('waits for the lock instead of failing with "database is locked"', async () => {
    const file = join(dir, 'workspace.db');
    const holder = new Database(file); // rollback-journal mode, as a database is before its first open
    holder.exec('CREATE TABLE early (x)');
    holder.exec('BEGIN IMMEDIATE'); // the reserved lock another first opener would hold mid-setup
    holder.exec('INSERT INTO early VALUES (1)');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/adversarial/fixtures/open-db.ts', file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (c: string) => {
        out += c;
        if (out.includes('opening\n')) resolve();
      }),
    );
    // Give the child time to run into the held lock, then release it.
    await new Promise((r) => setTimeout(r, 300));
    holder.exec('COMMIT');
    await exited;
    holder.close();
    expect(out).toBe('opening\nok\n');
    const db = new Database(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});
