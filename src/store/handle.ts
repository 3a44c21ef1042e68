/**
 * One face over both backends for the outer ring (the CLI, the inspector): the `HistoryStore` contract
 * plus what listing needs (a history's size and tip, forks, a change stamp), every call awaited. The
 * folder `Workspace` answers from its index; `PostgresStore` through its public API only, so the
 * PostgreSQL module is never loaded here (a type import): the caller constructs the store.
 */
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseLog, type LogProblem } from '../transcript/log.js';
import type { BlobStore, ConversationInfo } from '../tree/backend.js';
import type { AgentHistory } from '../tree/history.js';
import { validateId } from './ids.js';
import { acquireLock } from './lock.js';
import { readLog, writeLogAtomically } from './logfile.js';
import type { PostgresStore } from './postgres/index.js';
import { DAMAGE, LogIntegrityError, type Workspace } from './workspace.js';

/** What a listing shows of one history without drawing it. */
export interface HistorySummary {
  items: number;
  turn: number;
  tip: string | null;
  /** Milliseconds since the epoch: the log's mtime (folder), the tip item's time (PostgreSQL). */
  lastActivity?: number;
}

export interface StoreHandle {
  readonly kind: 'folder' | 'postgres';
  /** Opened for reading only: `write` throws. */
  readonly readOnly: boolean;
  /** Where the record is, for messages: the directory, or the URL without its password. */
  readonly shown: string;
  conversations(): Promise<string[]>;
  conversation(id: string): Promise<ConversationInfo | undefined>;
  /** Conversations forked from `id`, sorted. */
  forksOf(id: string): Promise<string[]>;
  /** Opens a history read-only (no lock; damage reported, never refused). */
  read(conversation: string, agent: string): Promise<AgentHistory<boolean>>;
  /** Opens (creating when new) a history for writing, under the writer lock. */
  write(conversation: string, agent: string, options?: { system?: string }): Promise<AgentHistory<boolean>>;
  /** Size, turn and tip of a history, or `undefined` when it does not exist. */
  summary(conversation: string, agent: string): Promise<HistorySummary | undefined>;
  /**
   * A value that changes whenever the history's log does (the folder log's size and mtime), or
   * `undefined` when the backend cannot tell without reading the history (PostgreSQL).
   */
  stamp(conversation: string, agent: string): string | undefined;
  readonly blobs: BlobStore<boolean>;
  /**
   * The committed lines of one history exactly as stored (header, every branch, tip moves,
   * checkpoints, commit marks, the hash chain): the same bytes in a folder's log and a database's rows.
   */
  exportLog(conversation: string, agent: string): AsyncIterable<string | Uint8Array>;
  /**
   * Stores such lines as a new history, unchanged (conversation and agent come from the header). A
   * damaged log is refused (`LogIntegrityError`, nothing stored), an uncommitted tail left out, an
   * existing history refused. File snapshots of checkpoints are not in a log: `missingBlobs` counts
   * those this store does not hold.
   */
  importLog(log: Uint8Array): Promise<LogImport>;
  /** Closes open histories (releasing their locks) and the store's handles or connections. */
  close(): Promise<void>;
}

/** What `importLog` stored. */
export interface LogImport {
  conversation: string;
  agent: string;
  lines: number;
  items: number;
  problems: LogProblem[];
  /** Checkpoint file snapshots the log names that the store does not hold (restore cannot bring them back). */
  missingBlobs: number;
}

/** Checks a log before storing it: header present, ids valid, no damage in the committed part. */
function checkLog(log: Uint8Array) {
  const parsed = parseLog(log);
  const damage = parsed.problems.filter((p) => DAMAGE.has(p.kind));
  if (damage.length > 0 || !parsed.header)
    throw new LogIntegrityError(
      `the log is damaged; nothing was stored:\n  ${(damage.length > 0 ? damage.map((p) => p.message) : ['no header line']).join('\n  ')}`,
      damage,
    );
  const { conversation, agent } = parsed.header;
  validateId('conversation', conversation);
  validateId('agent', agent);
  const hashes = new Set<string>();
  for (const { entry } of parsed.entries)
    if (entry.t === 'checkpoint')
      for (const h of Object.values(entry.checkpoint.files)) if (h !== null) hashes.add(h);
  const items = parsed.entries.filter((e) => e.entry.t === 'item').length;
  return { parsed, conversation, agent, hashes, items };
}

async function countMissing(blobs: BlobStore<boolean>, hashes: Iterable<string>): Promise<number> {
  let missing = 0;
  for (const h of hashes)
    try {
      await blobs.get(h);
    } catch {
      missing++;
    }
  return missing;
}

const readOnlyError = (shown: string, conversation: string, agent: string): Error =>
  new Error(`conversation ${conversation} agent ${agent}: ${shown} is open read-only`);

/** The folder workspace as a `StoreHandle` (`ws` opened by the caller, closed by `close()`). */
export function folderHandle(ws: Workspace, shown: string = ws.dir): StoreHandle {
  return {
    kind: 'folder',
    readOnly: ws.readOnly,
    shown,
    conversations: async () => ws.conversations(),
    conversation: async (id) => ws.conversation(id),
    forksOf: async (id) => ws.forksOf(id),
    read: async (c, a) => ws.history(c, a, { readOnly: true }),
    write: async (c, a, o = {}) => {
      if (ws.readOnly) throw readOnlyError(shown, c, a);
      return ws.history(c, a, o.system !== undefined ? { system: o.system } : {});
    },
    summary: async (c, a) => {
      const row = ws.historyRow(c, a);
      if (!row) return undefined;
      let lastActivity: number | undefined;
      try {
        lastActivity = statSync(ws.logPath(c, a)).mtimeMs;
      } catch {
        // a log gone since indexing: listed with what the index knows
      }
      return {
        items: row.items,
        turn: row.turn,
        tip: row.tip,
        ...(lastActivity !== undefined ? { lastActivity } : {}),
      };
    },
    stamp: (c, a) => {
      const st = statSync(ws.logPath(c, a));
      return `${st.size}:${st.mtimeMs}`;
    },
    blobs: ws.blobs,
    exportLog: async function* (c, a) {
      // The committed prefix only: an uncommitted tail (a crash mid-commit) is not part of the record.
      // Measured first by a streamed parse, then streamed out: a writer appending meanwhile only adds
      // after that prefix, and no copy of the whole log is held.
      const path = ws.logPath(c, a);
      const { committedBytes } = readLog(path, undefined, { keepEntries: false });
      if (committedBytes > 0) yield* createReadStream(path, { end: committedBytes - 1 });
    },
    importLog: async (log) => {
      const { parsed, conversation, agent, hashes, items } = checkLog(log);
      const what = `conversation ${conversation} agent ${agent}`;
      if (ws.readOnly) throw readOnlyError(shown, conversation, agent);
      const path = ws.logPath(conversation, agent);
      mkdirSync(dirname(path), { recursive: true });
      // Under the writer lock, as a new history is created (the same lock and write as createLog).
      const release = acquireLock(path.replace(/\.jsonl$/, '.lock'), what);
      try {
        if (existsSync(path)) throw new Error(`${what} already exists in ${shown}`);
        writeLogAtomically(path, log.subarray(0, parsed.committedBytes));
      } finally {
        release();
      }
      // Opening it indexes it (conversation, agents, tip, checkpoints, lineage).
      ws.history(conversation, agent, { readOnly: true }).close();
      return {
        conversation,
        agent,
        lines: parsed.committedLines,
        items,
        problems: parsed.problems,
        missingBlobs: await countMissing(ws.blobs, hashes),
      };
    },
    close: async () => ws.close(),
  };
}

/**
 * A `PostgresStore` as a `StoreHandle`. `readOnly` refuses `write` here; the store itself would let a
 * writer in. A summary opens the history read-only (the store has no public per-history row), so a
 * listing of many long histories reads them all.
 */
export function postgresHandle(store: PostgresStore, shown: string, readOnly: boolean): StoreHandle {
  return {
    kind: 'postgres',
    readOnly,
    shown,
    conversations: () => store.conversations(),
    conversation: (id) => store.conversation(id),
    forksOf: (id) => store.forksOf(id),
    read: (c, a) => store.history(c, a, { readOnly: true }),
    write: async (c, a, o = {}) => {
      if (readOnly) throw readOnlyError(shown, c, a);
      return store.history(c, a, o.system !== undefined ? { system: o.system } : {});
    },
    summary: async (c, a) => {
      if (!(await store.conversation(c))?.agents.includes(a)) return undefined;
      const h = await store.history(c, a, { readOnly: true });
      try {
        const time = h.tip === null ? undefined : Date.parse(h.get(h.tip)?.time ?? '');
        return {
          items: h.itemCount,
          turn: h.turn,
          tip: h.tip,
          ...(time !== undefined && !Number.isNaN(time) ? { lastActivity: time } : {}),
        };
      } finally {
        await h.close();
      }
    },
    stamp: () => undefined,
    blobs: store.blobs,
    exportLog: (c, a) => store.exportLog(c, a),
    importLog: async (log) => {
      const { hashes } = checkLog(log);
      if (readOnly) throw new Error(`${shown} is open read-only`);
      const r = await store.importLog(log);
      return { ...r, missingBlobs: await countMissing(store.blobs, hashes) };
    },
    close: () => store.close(),
  };
}
