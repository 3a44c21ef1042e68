/**
 * What a storage backend supplies to an `AgentHistory` (LangGraph-style: the tree logic is written once
 * in `history.ts`; a backend only stores committed units and blobs). The memory backend in `memory.ts`
 * is the reference; `store/` holds the JSONL + SQLite one. Both pass `test/tree/history.case.ts`.
 */
import type { LineLocation, LogEntry, LogHeader, LogProblem, Lineage } from '../transcript/log.js';
import type { AgentHistory } from './history.js';
import type { TreeState } from './state.js';

export interface LoadedLog {
  header: LogHeader | undefined;
  /** Committed entries to replay (empty when `tree` is given). */
  entries: readonly { line: number; entry: LogEntry }[];
  problems: LogProblem[];
  /**
   * The tree already built from the log while it was streamed (`applyEntry` with each item's location
   * and a reader), so the entries never had to be held at once; `problems` are the tree's own
   * (references), reported after the log's.
   */
  tree?: { state: TreeState; problems: LogProblem[] };
}

/** A value, or a promise of it: what a call of the store contract returns (always `await` it). */
export type Awaitable<T> = T | Promise<T>;

/**
 * `T` for a synchronous backend (`A = false`: the folder workspace, memory), `Promise<T>` for an
 * asynchronous one (`A = true`: PostgreSQL), either for code written against both (`A = boolean`).
 */
export type StoreReturn<A extends boolean, T> = A extends true ? Promise<T> : T;

/** Content-addressed bytes (file snapshots). Keys are lower-case hex sha256 of the content. */
export interface BlobStore<A extends boolean = false> {
  put(bytes: Uint8Array): StoreReturn<A, string>;
  /** Throws (or rejects) when the blob is missing. */
  get(hash: string): StoreReturn<A, Uint8Array>;
}

export interface HistoryBackend<A extends boolean = false> {
  readonly conversation: string;
  readonly agent: string;
  /** True for a backend whose writes return promises; its `AgentHistory` returns promises too. */
  readonly async?: A;
  /** Every committed entry: those found when opened and those written since (loaded before construction). */
  load(): LoadedLog;
  /**
   * Durably appends one unit (its last entry is the commit mark): after a crash at any instant a reload
   * sees all of it or none of it. Returns (or resolves) when the unit is durable; a backend that can
   * read items back returns where each entry's line now is (parallel to `unit`), so the history may
   * drop their bodies.
   */
  write(unit: readonly LogEntry[]): StoreReturn<A, readonly LineLocation[] | void>;
  readonly blobs: BlobStore<A>;
  /**
   * Creates the history of `agent` in a new conversation that records `lineage` (and the source's
   * system prompt, when it has one), opened for writing.
   */
  createFork(conversation: string, lineage: Lineage, system?: string): StoreReturn<A, HistoryBackend<A>>;
  /** A fresh conversation id for a fork (valid as a file name). */
  newConversationId(): string;
  /** Releases the writer lock (if any). Further writes throw. */
  close(): StoreReturn<A, void>;
}

/** Information about one conversation, as every workspace reports it. */
export interface ConversationInfo {
  id: string;
  created: string;
  /** Agents with a history in it, sorted. */
  agents: string[];
  forkedFrom?: Lineage;
}

/** A writer already holds this conversation-and-agent (another process, or another open history). */
export class HistoryLockedError extends Error {
  override name = 'HistoryLockedError';
}

/** What a history is created with (ignored when it exists, except that a different one is an error). */
export interface CreateHistoryOptions {
  /** The system prompt to record in the new log's header (`AgentHistory.system`). */
  system?: string;
}

/**
 * The store contract: what every backend offers, synchronous (the folder `Workspace`, `MemoryWorkspace`)
 * or asynchronous (`PostgresStore` from `glyphfold/store/postgres`). Code written against it `await`s
 * every call that may write or read the store (awaiting a plain value costs nothing), so a harness
 * moves from a folder to a database by changing the one line that constructs its store. All backends
 * pass the same conformance suite (`test/tree/history.case.ts`).
 */
export interface HistoryStore {
  /**
   * Opens (creating when new) the history of `agent` (default `'main'`) in `conversation` for writing.
   * A second writer of the same conversation-and-agent, in this process or another, gets
   * `HistoryLockedError`. `close()` the history to let the next writer in.
   */
  history(
    conversation: string,
    agent?: string,
    options?: CreateHistoryOptions,
  ): Awaitable<AgentHistory<boolean>>;
  /** The conversation `id`, or `undefined` when it has no history. */
  conversation(id: string): Awaitable<ConversationInfo | undefined>;
  /** Every conversation id, sorted. */
  conversations(): Awaitable<string[]>;
  /** Releases what the store holds (database handles, connections); open histories must be closed first. */
  close(): Awaitable<void>;
}

/** A synchronous store (the memory reference and the folder workspace): every call returns its value. */
export interface HistoryWorkspace extends HistoryStore {
  history(conversation: string, agent?: string, options?: CreateHistoryOptions): AgentHistory;
  conversation(id: string): ConversationInfo | undefined;
  conversations(): string[];
  close(): void;
}

/** The error for a system prompt given to an existing history that was created with another. */
export function systemMismatch(conversation: string, agent: string, recorded: string | undefined): string {
  return `conversation ${conversation} agent ${agent} exists and was created with ${recorded === undefined ? 'no system prompt' : `another system prompt (${recorded.length} chars)`}; a history's system prompt is fixed when it is created`;
}
