/**
 * One face over both backends for the outer ring (the CLI, the inspector): the `HistoryStore` contract
 * plus what listing needs (a history's size and tip, forks, a change stamp), every call awaited. The
 * folder `Workspace` answers from its index; `PostgresStore` through its public API only, so the
 * PostgreSQL module is never loaded here (a type import): the caller constructs the store.
 */
import { statSync } from 'node:fs';
import type { BlobStore, ConversationInfo } from '../tree/backend.js';
import type { AgentHistory } from '../tree/history.js';
import type { PostgresStore } from './postgres/index.js';
import type { Workspace } from './workspace.js';

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
  /** Closes open histories (releasing their locks) and the store's handles or connections. */
  close(): Promise<void>;
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
    close: () => store.close(),
  };
}
