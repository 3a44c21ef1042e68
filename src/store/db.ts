/**
 * The workspace database: an index of conversations, agent histories, tips, checkpoints and fork
 * lineage. The logs are the source of truth; `reindex` rebuilds all of this from them.
 *
 * Migrations are an ordered array whose index + 1 is the schema version (`PRAGMA user_version`);
 * `openDatabase` applies the missing ones in one transaction, so setup is lazy and idempotent.
 */
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';

/**
 * better-sqlite3 is a native module: loading it costs a shared library and tens of milliseconds, so it
 * is loaded when the first workspace opens, not when glyphfold is imported (the root re-exports the
 * store). `require` keeps opening synchronous.
 */
let sqlite: typeof Database | undefined;
function loadSqlite(): typeof Database {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return sqlite;
}

export const DB_MIGRATIONS: readonly string[] = [
  `CREATE TABLE conversations (
     id TEXT PRIMARY KEY,
     created TEXT NOT NULL,
     forked_from_conversation TEXT,
     forked_from_agent TEXT,
     forked_from_tip TEXT
   );
   CREATE INDEX conversations_forked_from ON conversations (forked_from_conversation);
   CREATE TABLE histories (
     conversation TEXT NOT NULL,
     agent TEXT NOT NULL,
     created TEXT NOT NULL,
     tip TEXT,
     turn INTEGER NOT NULL,
     items INTEGER NOT NULL,
     lines INTEGER NOT NULL,
     head TEXT,
     PRIMARY KEY (conversation, agent)
   );
   CREATE TABLE checkpoints (
     conversation TEXT NOT NULL,
     agent TEXT NOT NULL,
     label TEXT NOT NULL,
     at TEXT,
     turn INTEGER NOT NULL,
     time TEXT NOT NULL,
     files TEXT NOT NULL,
     PRIMARY KEY (conversation, agent, label)
   );`,
];

export interface HistoryRow {
  conversation: string;
  agent: string;
  created: string;
  tip: string | null;
  turn: number;
  items: number;
  /** Committed lines in the log (header included) when the row was written. */
  lines: number;
  /** Hash of the last committed line then: detects a log truncated or rewritten behind our back. */
  head: string | null;
}

export interface ConversationRow {
  id: string;
  created: string;
  forked_from_conversation: string | null;
  forked_from_agent: string | null;
  forked_from_tip: string | null;
}

export type Db = Database.Database;
export type Statement = Database.Statement;

/** How long a connection waits for another one's lock before "database is locked". */
const BUSY_TIMEOUT_MS = 10_000;

const isBusy = (err: unknown) => ((err as { code?: string }).code ?? '').startsWith('SQLITE_BUSY');

/**
 * Runs `step`, retrying while SQLite answers SQLITE_BUSY without having waited itself. That happens
 * where waiting could deadlock: switching a fresh database to WAL needs an exclusive lock, and when
 * several processes open a new workspace at once each holds a shared lock, so SQLite fails one of them
 * at once instead of calling the busy handler. Retrying from scratch (no lock held) is safe.
 */
function retryBusy<T>(step: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      return step();
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err;
      Atomics.wait(pause, 0, 0, Math.min(50, 2 + attempt * 5)); // a synchronous sleep
    }
  }
}

export function openDatabase(file: string): Db {
  // `timeout` is the busy handler from the first statement on (the pragma below included).
  const db = new (loadSqlite())(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    if (db.pragma('journal_mode', { simple: true }) !== 'wal' && file !== ':memory:')
      retryBusy(() => db.pragma('journal_mode = WAL'));
  } catch (err) {
    db.close();
    throw err;
  }
  // The logs carry durability; the index may lag them by a commit after a crash and is checked on open.
  db.pragma('synchronous = NORMAL');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > DB_MIGRATIONS.length)
    throw new Error(
      `${file}: database schema version ${version} is newer than this code knows (${DB_MIGRATIONS.length})`,
    );
  if (version < DB_MIGRATIONS.length) {
    db.transaction(() => {
      // Re-read inside the write transaction: another process may have migrated meanwhile.
      const now = db.pragma('user_version', { simple: true }) as number;
      for (let v = now; v < DB_MIGRATIONS.length; v++) db.exec(DB_MIGRATIONS[v]!);
      db.pragma(`user_version = ${DB_MIGRATIONS.length}`);
    }).immediate();
  }
  return db;
}
