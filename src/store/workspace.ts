/**
 * The workspace on disk:
 *
 *   <dir>/workspace.db                      SQLite index (conversations, histories, tips, checkpoints, lineage)
 *   <dir>/logs/<conversation>/<agent>.jsonl one log per conversation-and-agent: the source of truth
 *   <dir>/logs/<conversation>/<agent>.lock  the writer's pid while a history is open for writing
 *   <dir>/blobs/<xx>/<sha256>               file snapshots of checkpoints
 *
 * Opening a history reads its own log and one database row, nothing else, so it costs the same in a
 * workspace of one conversation or of thousands.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Item } from '../transcript/items.js';
import { sha256Hex } from '../transcript/hash.js';
import type {
  Checkpoint,
  LineLocation,
  LogEntry,
  LogHeader,
  LogProblem,
  Lineage,
  ParsedLog,
} from '../transcript/log.js';
import { decodeEntryLine, encodeEntries, LOG_VERSION } from '../transcript/log.js';
import type {
  BlobStore,
  ConversationInfo,
  HistoryBackend,
  HistoryWorkspace,
  LoadedLog,
} from '../tree/backend.js';
import { systemMismatch } from '../tree/backend.js';
import { AgentHistory, type HistoryOptions } from '../tree/history.js';
import { applyEntry, emptyState, type TreeState } from '../tree/state.js';
import { diskBlobs } from './blobs.js';
import { openDatabase, type ConversationRow, type Db, type HistoryRow, type Statement } from './db.js';
import { validateId } from './ids.js';
import { acquireLock } from './lock.js';
import {
  createLog,
  DEFAULT_MAX_LOG_BYTES,
  LogAppender,
  nodeLogIo,
  readLog,
  setAsideTail,
  type LogIo,
} from './logfile.js';

/** A log with damage in its committed part (tampering, truncation) was opened for writing. */
export class LogIntegrityError extends Error {
  override name = 'LogIntegrityError';
  constructor(
    message: string,
    readonly problems: readonly LogProblem[],
  ) {
    super(message);
  }
}

export interface OpenHistoryOptions extends HistoryOptions {
  /** Open without the writer lock; every write throws. Damage is reported, never refused. */
  readOnly?: boolean;
  /** Open for writing even though the committed part of the log is damaged (problems stay reported). */
  acceptDamage?: boolean;
  /**
   * The system prompt to record when this opens a new history (in its log's header; `AgentHistory.system`).
   * For an existing history it must be the one recorded, or the open fails.
   */
  system?: string;
}

export interface WorkspaceOptions extends HistoryOptions {
  /**
   * @internal The system calls log appends go through. Tests pass a copy of `nodeLogIo` whose `write`
   * fails at a chosen byte to check that failed commits are rolled back.
   */
  logIo?: LogIo;
  /** Largest log in bytes (default `DEFAULT_MAX_LOG_BYTES`, 1 GiB); a commit past it throws `LogFullError`. */
  maxLogBytes?: number;
  /**
   * Bytes of item lines an open history keeps in memory (default `DEFAULT_RETAIN_BYTES`, 16 MiB): items
   * are kept in the order they are loaded until the budget is spent; the others are read back from the
   * log when asked for. 0 keeps none.
   */
  retainBytes?: number;
  /**
   * Open an existing workspace for reading: a missing one is an error instead of being created, no
   * history opens for writing, and without a `workspace.db` the index is built in memory from the logs.
   */
  readOnly?: boolean;
}

/** The workspace database cannot be read; the logs (the source of truth) are untouched. */
export class WorkspaceDatabaseError extends Error {
  override name = 'WorkspaceDatabaseError';
}

/**
 * `reindex()` found logs holding less than the workspace database recorded as committed (truncated,
 * rewritten, or gone). Nothing was changed; `reindex({ acceptLoss: true })` rebuilds anyway.
 */
export class ReindexLossError extends Error {
  override name = 'ReindexLossError';
  constructor(
    message: string,
    readonly losses: readonly ReindexLoss[],
  ) {
    super(message);
  }
}

/** One log that disagrees with what the workspace database recorded as committed. */
export interface ReindexLoss {
  conversation: string;
  agent: string;
  kind: 'truncated' | 'rewritten' | 'missing';
  message: string;
}

export interface ReindexReport {
  conversations: number;
  histories: number;
  items: number;
  /** Problems per log, with line numbers. */
  problems: { conversation: string; agent: string; problems: LogProblem[] }[];
  /** Logs holding less than the old database recorded (only with `acceptLoss`; else reindex throws). */
  losses: ReindexLoss[];
  /** Where an unreadable old database was moved before the rebuild. */
  movedAside?: string;
  /** Entries under `logs/` that are not valid conversation or agent names (left alone). */
  skipped: string[];
}

/** Problems that mean the committed part of a log is not what was written (a crash never causes them). */
export const DAMAGE: ReadonlySet<LogProblem['kind']> = new Set([
  'header',
  'malformed',
  'chain',
  'invalid',
  'truncated',
  'version',
  'reference',
]);

interface Summary {
  tip: string | null;
  turn: number;
  items: number;
  checkpoints: Checkpoint[];
}

function summarize(parsed: ParsedLog): Summary {
  const state = emptyState();
  const ignored: LogProblem[] = [];
  for (const { line, entry } of parsed.entries) applyEntry(state, entry, line, ignored);
  return {
    tip: state.tip,
    turn: state.turn,
    items: state.order.length,
    checkpoints: [...state.checkpoints.values()],
  };
}

/** SQLite's "not a database" and "malformed" errors: the file is damaged, not busy or missing. */
function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB');
}

/** Renames `file` and its WAL companions to `<file>.corrupt-<time>`; returns the new name. */
function moveAside(file: string): string {
  const aside = `${file}.corrupt-${Date.now()}`;
  for (const suffix of ['', '-wal', '-shm'])
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  return aside;
}

/**
 * Reads a log for the index only: the same summary as `summarize(readLog(path))`, but each entry is
 * dropped once counted (item ids are kept, to check references as the tree does), so reindexing a
 * workspace holds one unit of one log at a time instead of every log.
 */
function readLogSummary(path: string): { parsed: ParsedLog; summary: Summary } {
  const ids = new Set<string>();
  const checkpoints = new Map<string, Checkpoint>();
  const summary: Summary = { tip: null, turn: 0, items: 0, checkpoints: [] };
  const parsed = readLog(path, undefined, {
    keepEntries: false,
    // The rules of applyEntry (src/tree/state.ts), on ids alone.
    onCommitted: (_line, entry) => {
      if (entry.t === 'item') {
        if (ids.has(entry.item.id)) return;
        ids.add(entry.item.id);
        summary.items++;
        summary.tip = entry.item.id;
      } else if (entry.t === 'tip') {
        if (entry.tip === null || ids.has(entry.tip)) summary.tip = entry.tip;
      } else if (entry.t === 'checkpoint') {
        const c = entry.checkpoint;
        if (c.at === null || ids.has(c.at)) checkpoints.set(c.label, c);
      } else summary.turn = Math.max(summary.turn, entry.turn);
    },
  });
  summary.checkpoints = [...checkpoints.values()];
  return { parsed, summary };
}

export class Workspace implements HistoryWorkspace {
  private database: Db | undefined;
  private prepared: { db: Db; updateHistory: Statement; upsertCheckpoint: Statement } | undefined;
  private readonly blobStore: BlobStore;
  private readonly options: HistoryOptions;
  /** @internal */
  readonly logIo: LogIo;
  /** @internal */
  readonly maxLogBytes: number;
  /** @internal */
  readonly retainBytes: number | undefined;
  private readonly readOnlyWorkspace: boolean;

  private constructor(
    /** The workspace directory. */
    readonly dir: string,
    options: WorkspaceOptions,
  ) {
    const { logIo, maxLogBytes, readOnly, retainBytes, ...history } = options;
    this.retainBytes = retainBytes;
    this.options = history;
    this.readOnlyWorkspace = readOnly ?? false;
    this.logIo = logIo ?? nodeLogIo;
    this.maxLogBytes = maxLogBytes ?? DEFAULT_MAX_LOG_BYTES;
    this.blobStore = diskBlobs(join(dir, 'blobs'));
  }

  /**
   * Opens (creating when missing) the workspace in `dir`. The database is set up on first use. With
   * `readOnly`, a directory that holds no workspace is an error and nothing is created.
   */
  static open(dir: string, options: WorkspaceOptions = {}): Workspace {
    if (options.readOnly) {
      if (!existsSync(join(dir, 'logs')) && !existsSync(join(dir, 'workspace.db')))
        throw new Error(`no glyphfold workspace in ${dir} (expected ${join(dir, 'logs')})`);
    } else mkdirSync(join(dir, 'logs'), { recursive: true });
    return new Workspace(dir, options);
  }

  /** True when opened with `readOnly`. */
  get readOnly(): boolean {
    return this.readOnlyWorkspace;
  }

  /**
   * @internal lazily opened, migrated, WAL. A missing database is rebuilt from the logs (in memory
   * for a read-only workspace); an unreadable one is a `WorkspaceDatabaseError` naming the file.
   */
  get db(): Db {
    if (this.database) return this.database;
    const file = join(this.dir, 'workspace.db');
    const fresh = !existsSync(file);
    if (fresh && this.readOnlyWorkspace) {
      this.database = openDatabase(':memory:');
      this.indexAll();
      return this.database;
    }
    try {
      this.database = openDatabase(file);
    } catch (err) {
      // Busy, permissions, a full disk: not damage, and not a reason to set the file aside.
      if (!isCorruption(err)) throw err;
      throw new WorkspaceDatabaseError(
        `the workspace database ${file} cannot be read (${(err as Error).message}); the logs are intact: ` +
          `'glyphfold reindex --workspace ${this.dir}' moves it aside and rebuilds it from them`,
        { cause: err },
      );
    }
    // Deleted (or never written after a crash): index what the logs hold, so no conversation is hidden.
    if (fresh) this.indexAll();
    return this.database;
  }

  /** Indexes every valid log (a fresh database: nothing to compare with). */
  private indexAll(): void {
    const all = this.readAllLogs({ problems: [], skipped: [] });
    this.db.transaction(() => {
      for (const { conversation, agent, parsed, summary } of all)
        this.indexHistory(conversation, agent, parsed, summary);
    })();
  }

  get blobs(): BlobStore {
    return this.blobStore;
  }

  /** Where the log of `agent` in `conversation` lives (ids validated). */
  logPath(conversation: string, agent: string): string {
    return join(
      this.dir,
      'logs',
      validateId('conversation', conversation),
      `${validateId('agent', agent)}.jsonl`,
    );
  }

  /**
   * Opens the history of `agent` in `conversation`, creating both when new. For writing (the default),
   * takes the writer lock: a second writer gets `HistoryLockedError`. Close it to release the lock.
   */
  history(conversation: string, agent = 'main', options: OpenHistoryOptions = {}): AgentHistory {
    if (this.readOnlyWorkspace && !options.readOnly)
      throw new Error(
        `conversation ${conversation} agent ${agent}: the workspace ${this.dir} is open read-only; pass { readOnly: true }`,
      );
    const backend = new DiskBackend(this, conversation, agent, {
      readOnly: options.readOnly ?? false,
      acceptDamage: options.acceptDamage ?? false,
      ...(options.system !== undefined ? { system: options.system } : {}),
    });
    try {
      return new AgentHistory(backend, { ...this.options, ...options });
    } catch (err) {
      backend.close();
      throw err;
    }
  }

  /** The conversation `id`, or `undefined` when it has no history. One indexed lookup. */
  conversation(id: string): ConversationInfo | undefined {
    validateId('conversation', id);
    let row = this.db.prepare('SELECT * FROM conversations WHERE id = ?').get(id) as
      ConversationRow | undefined;
    if (!row && existsSync(join(this.dir, 'logs', id))) {
      // A crash between creating a log and indexing it: index this one conversation from its logs.
      this.indexConversation(id);
      row = this.db.prepare('SELECT * FROM conversations WHERE id = ?').get(id) as
        ConversationRow | undefined;
    }
    if (!row) return undefined;
    const agents = (
      this.db.prepare('SELECT agent FROM histories WHERE conversation = ? ORDER BY agent').all(id) as {
        agent: string;
      }[]
    ).map((r) => r.agent);
    return {
      id,
      created: row.created,
      agents,
      ...(row.forked_from_conversation !== null
        ? {
            forkedFrom: {
              conversation: row.forked_from_conversation,
              agent: row.forked_from_agent ?? 'main',
              tip: row.forked_from_tip,
            },
          }
        : {}),
    };
  }

  /** Ids of all indexed conversations, sorted. */
  conversations(): string[] {
    return (this.db.prepare('SELECT id FROM conversations ORDER BY id').all() as { id: string }[]).map(
      (r) => r.id,
    );
  }

  /** Conversations forked from `id`. */
  forksOf(id: string): string[] {
    return (
      this.db
        .prepare('SELECT id FROM conversations WHERE forked_from_conversation = ? ORDER BY id')
        .all(id) as { id: string }[]
    ).map((r) => r.id);
  }

  /** Every log under `logs/` with a valid conversation and agent id, parsed (streamed). */
  private readAllLogs(
    report: Pick<ReindexReport, 'problems' | 'skipped'>,
  ): { conversation: string; agent: string; parsed: ParsedLog; summary: Summary }[] {
    const logsDir = join(this.dir, 'logs');
    const out: { conversation: string; agent: string; parsed: ParsedLog; summary: Summary }[] = [];
    if (!existsSync(logsDir)) return out;
    for (const conv of readdirSync(logsDir, { withFileTypes: true })) {
      if (!conv.isDirectory()) continue;
      try {
        validateId('conversation', conv.name);
      } catch {
        report.skipped.push(`logs/${conv.name}`);
        continue;
      }
      for (const file of readdirSync(join(logsDir, conv.name))) {
        if (!file.endsWith('.jsonl')) continue;
        const agent = file.slice(0, -'.jsonl'.length);
        try {
          validateId('agent', agent);
        } catch {
          report.skipped.push(`logs/${conv.name}/${file}`);
          continue;
        }
        const { parsed, summary } = readLogSummary(join(logsDir, conv.name, file));
        out.push({ conversation: conv.name, agent, parsed, summary });
        if (parsed.problems.length > 0)
          report.problems.push({ conversation: conv.name, agent, problems: parsed.problems });
      }
    }
    return out;
  }

  /**
   * Rebuilds the database from the logs (which stay untouched) and reports what each log holds. Every
   * log holding less than the old database recorded as committed — fewer committed lines, a different
   * line where the recorded head was, or no log at all — is a `ReindexLoss`: without `acceptLoss` the
   * call throws `ReindexLossError` listing all of them and changes nothing, so a repair never hides
   * lost turns. An unreadable database is moved aside (`movedAside`) and rebuilt.
   */
  reindex(options: { acceptLoss?: boolean } = {}): ReindexReport {
    const report: ReindexReport = {
      conversations: 0,
      histories: 0,
      items: 0,
      problems: [],
      losses: [],
      skipped: [],
    };
    const parsedAll = this.readAllLogs(report);
    let rows: HistoryRow[] = [];
    try {
      rows = this.db.prepare('SELECT * FROM histories').all() as HistoryRow[];
    } catch (err) {
      if (!(err instanceof WorkspaceDatabaseError) && !isCorruption(err)) throw err; // only damage
      // Nothing in it can be read, so there is nothing to compare with: set it aside, start over.
      this.close();
      report.movedAside = moveAside(join(this.dir, 'workspace.db'));
    }
    const byKey = new Map(parsedAll.map((p) => [`${p.conversation}/${p.agent}`, p.parsed]));
    for (const row of rows) {
      const parsed = byKey.get(`${row.conversation}/${row.agent}`);
      const base = { conversation: row.conversation, agent: row.agent };
      if (!parsed)
        report.losses.push({
          ...base,
          kind: 'missing',
          message: `the log is gone; the database recorded ${row.lines} committed lines (turn ${row.turn}, ${row.items} items)`,
        });
      else if (row.lines > parsed.committedLines)
        report.losses.push({
          ...base,
          kind: 'truncated',
          message: `the log has ${parsed.committedLines} committed lines; the database recorded ${row.lines} (turn ${row.turn}, ${row.items} items)`,
        });
      else if (row.head !== null && parsed.commitHashes.get(row.lines) !== row.head)
        report.losses.push({
          ...base,
          kind: 'rewritten',
          message: `line ${row.lines} is not the commit the database recorded (hash ${row.head.slice(0, 12)}…): the log was rewritten`,
        });
    }
    if (report.losses.length > 0 && !options.acceptLoss) {
      throw new ReindexLossError(
        `reindex: ${report.losses.length} log(s) hold less than the workspace database recorded as committed; ` +
          `nothing was changed. Rebuilding would make the loss permanent; pass acceptLoss (--accept-loss) to do it anyway:\n  ` +
          report.losses.map((l) => `${l.conversation}/${l.agent}: ${l.kind}: ${l.message}`).join('\n  '),
        report.losses,
      );
    }
    this.db.transaction(() => {
      this.db.exec('DELETE FROM checkpoints; DELETE FROM histories; DELETE FROM conversations;');
      const seen = new Set<string>();
      for (const { conversation, agent, parsed, summary } of parsedAll) {
        const s = this.indexHistory(conversation, agent, parsed, summary);
        seen.add(conversation);
        report.histories++;
        report.items += s.items;
      }
      report.conversations = seen.size;
    })();
    return report;
  }

  /** Closes the database. Histories opened from this workspace must be closed by their holders. */
  close(): void {
    this.database?.close();
    this.database = undefined;
  }

  private indexConversation(id: string): void {
    const dir = join(this.dir, 'logs', id);
    this.db.transaction(() => {
      for (const file of readdirSync(dir)) {
        if (!file.endsWith('.jsonl')) continue;
        const agent = file.slice(0, -'.jsonl'.length);
        try {
          validateId('agent', agent);
        } catch {
          continue;
        }
        const { parsed, summary } = readLogSummary(join(dir, file));
        this.indexHistory(id, agent, parsed, summary);
      }
    })();
  }

  /** @internal writes the rows for one parsed log (caller holds a transaction). */
  indexHistory(conversation: string, agent: string, parsed: ParsedLog, s = summarize(parsed)): Summary {
    const header = parsed.header;
    const created = header?.created ?? new Date(0).toISOString();
    const lineage = header?.forkedFrom;
    const db = this.db;
    db.prepare(
      `INSERT INTO conversations (id, created, forked_from_conversation, forked_from_agent, forked_from_tip)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET
         created = min(created, excluded.created),
         forked_from_conversation = coalesce(forked_from_conversation, excluded.forked_from_conversation),
         forked_from_agent = coalesce(forked_from_agent, excluded.forked_from_agent),
         forked_from_tip = coalesce(forked_from_tip, excluded.forked_from_tip)`,
    ).run(conversation, created, lineage?.conversation ?? null, lineage?.agent ?? null, lineage?.tip ?? null);
    db.prepare(
      `INSERT OR REPLACE INTO histories (conversation, agent, created, tip, turn, items, lines, head) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      conversation,
      agent,
      created,
      s.tip,
      s.turn,
      s.items,
      parsed.committedLines,
      parsed.lastHash ?? null,
    );
    db.prepare('DELETE FROM checkpoints WHERE conversation = ? AND agent = ?').run(conversation, agent);
    const insert = db.prepare(
      'INSERT INTO checkpoints (conversation, agent, label, at, turn, time, files) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (const c of s.checkpoints)
      insert.run(conversation, agent, c.label, c.at, c.turn, c.time, JSON.stringify(c.files));
    return s;
  }

  /** @internal prepared once per database connection: a commit should not re-compile its SQL. */
  statements(): { db: Db; updateHistory: Statement; upsertCheckpoint: Statement } {
    const db = this.db;
    if (this.prepared?.db !== db) {
      this.prepared = {
        db,
        updateHistory: db.prepare(
          'UPDATE histories SET tip = ?, turn = ?, items = ?, lines = ?, head = ? WHERE conversation = ? AND agent = ?',
        ),
        upsertCheckpoint: db.prepare(
          'INSERT OR REPLACE INTO checkpoints (conversation, agent, label, at, turn, time, files) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ),
      };
    }
    return this.prepared;
  }

  /** @internal */
  historyRow(conversation: string, agent: string): HistoryRow | undefined {
    return this.db
      .prepare('SELECT * FROM histories WHERE conversation = ? AND agent = ?')
      .get(conversation, agent) as HistoryRow | undefined;
  }

  /** @internal */
  newConversationId(): string {
    return 'c_' + randomBytes(6).toString('hex');
  }
}

/** The JSONL + SQLite backend of one conversation-and-agent. */
class DiskBackend implements HistoryBackend {
  readonly conversation: string;
  readonly agent: string;
  private readonly path: string;
  private release: (() => void) | undefined;
  private appender: LogAppender | undefined;
  private loaded: LoadedLog;
  /** Set once a history took the tree: from then on it applies what is written (a fork writes before). */
  private handedOver = false;
  /** Format version of the log (its header's), to decode lines read back. */
  private version: number;
  private head: string;
  private lines: number;
  private tip: string | null;
  private turn: number;
  private items: number;

  constructor(
    private readonly ws: Workspace,
    conversation: string,
    agent: string,
    private readonly mode: { readOnly: boolean; acceptDamage: boolean; lineage?: Lineage; system?: string },
  ) {
    this.conversation = validateId('conversation', conversation);
    this.agent = validateId('agent', agent);
    this.path = ws.logPath(conversation, agent);
    const what = `conversation ${conversation} agent ${agent}`;
    if (!mode.readOnly) {
      mkdirSync(join(ws.dir, 'logs', conversation), { recursive: true });
      this.release = acquireLock(this.path.replace(/\.jsonl$/, '.lock'), what);
    }
    try {
      if (!existsSync(this.path)) {
        if (mode.readOnly) throw new RangeError(`${what} has no history in ${ws.dir}`);
        const header: LogHeader = {
          t: 'header',
          v: LOG_VERSION,
          conversation,
          agent,
          created: new Date().toISOString(),
          ...(mode.lineage ? { forkedFrom: mode.lineage } : {}),
          ...(mode.system !== undefined ? { system: mode.system } : {}),
        };
        createLog(this.path, header);
      } else if (mode.lineage) {
        throw new Error(`fork: conversation ${conversation} already has a history for agent ${agent}`);
      }
      // The row first, then the log: a writer appends to the log before it updates the row, so a
      // log read after the row holds at least what the row records, even while commits go on.
      const row = ws.historyRow(conversation, agent);
      if (statSync(this.path).size === 0 && !mode.readOnly && mode.acceptDamage) {
        // An empty file (never written by us: logs are created with their header by a rename).
        createLog(this.path, {
          t: 'header',
          v: LOG_VERSION,
          conversation,
          agent,
          created: new Date().toISOString(),
        });
      }
      // The tree is built while the log streams by, keeping item locations and only the newest bodies:
      // no copy of the log's entries is ever held (docs/store.md, "Size").
      const tree: TreeState = emptyState((at, id) => this.readItem(at, id), ws.retainBytes);
      const treeProblems: LogProblem[] = [];
      let parsed = readLog(this.path, undefined, {
        keepEntries: false,
        onCommitted: (line, entry, at) => applyEntry(tree, entry, line, treeProblems, at),
      });
      if (mode.system !== undefined && parsed.header && parsed.header.system !== mode.system)
        throw new Error(systemMismatch(conversation, agent, parsed.header.system));
      const problems = [...parsed.problems];
      if (row) {
        const hashThere = parsed.commitHashes.get(row.lines);
        if (row.lines > parsed.committedLines)
          problems.push({
            kind: 'truncated',
            line: parsed.committedLines,
            message: `log truncated: the workspace database recorded ${row.lines} committed lines, the log has ${parsed.committedLines}`,
          });
        else if (row.head !== null && hashThere !== row.head)
          problems.push({
            kind: 'truncated',
            line: row.lines,
            message: `log rewritten: line ${row.lines} is not the commit the workspace database recorded (hash ${row.head.slice(0, 12)}…)`,
          });
      }
      const damage = problems.filter((p) => DAMAGE.has(p.kind));
      if (damage.length > 0 && !mode.readOnly && !mode.acceptDamage) {
        // Refused before anything on disk changes (the tail stays where it is, for inspection).
        throw new LogIntegrityError(
          `${what}: the log ${this.path} is damaged; refusing to write on top of it (open read-only to inspect, or pass acceptDamage):\n  ` +
            damage.map((p) => p.message).join('\n  '),
          damage,
        );
      }
      if (!mode.readOnly) {
        const aside = setAsideTail(this.path, parsed);
        if (aside) {
          const i = problems.findIndex((p) => p.kind === 'uncommitted');
          if (i >= 0)
            problems[i] = {
              ...problems[i]!,
              message: `${problems[i]!.message}; the bytes were moved to ${aside}`,
            };
          parsed = { ...parsed, problems };
        }
      }
      this.head = parsed.lastHash ?? '';
      this.lines = parsed.committedLines;
      // Bring the index up to date unless that would erase the evidence of damage.
      const stale = !row || row.lines !== parsed.committedLines || row.head !== (parsed.lastHash ?? null);
      let s: Summary | undefined;
      const summary = (): Summary => ({
        tip: tree.tip,
        turn: tree.turn,
        items: tree.order.length,
        checkpoints: [...tree.checkpoints.values()],
      });
      if (stale && (damage.length === 0 || mode.acceptDamage)) {
        try {
          s = ws.db.transaction(() => ws.indexHistory(conversation, agent, parsed, summary()))();
        } catch (err) {
          // The index is a cache of the log (a full disk, a read-only directory): the history opens
          // from the log alone, and the row is brought up to date by a later open.
          process.emitWarning(
            `glyphfold: workspace index not updated for ${what} (reading the log instead): ${(err as Error).message}`,
          );
          s = summary();
        }
      }
      // A writer keeps the row's counters current; a reader that found the row fresh needs none.
      if (!mode.readOnly) s ??= summary();
      this.tip = s?.tip ?? row?.tip ?? null;
      this.turn = s?.turn ?? row?.turn ?? 0;
      this.items = s?.items ?? row?.items ?? 0;
      this.version = parsed.header?.v ?? LOG_VERSION;
      this.loaded = {
        header: parsed.header,
        entries: [],
        problems,
        tree: { state: tree, problems: treeProblems },
      };
      if (!mode.readOnly) this.appender = new LogAppender(this.path, ws.logIo, ws.maxLogBytes);
    } catch (err) {
      this.close();
      throw err;
    }
  }

  get blobs(): BlobStore {
    return this.ws.blobs;
  }

  load(): LoadedLog {
    this.handedOver = true;
    return this.loaded;
  }

  /**
   * Reads back an item the history dropped from memory: the line at `at`, checked against the hash it
   * had when indexed (a log changed under an open history is an error, never a wrong item).
   */
  private readItem(at: LineLocation, id: string): Item {
    const where = `log ${this.path}: item ${id} at byte ${at.offset}`;
    const bytes = Buffer.allocUnsafe(at.length);
    const fd = openSync(this.path, 'r');
    try {
      let done = 0;
      while (done < at.length) {
        const n = readSync(fd, bytes, done, at.length - done, at.offset + done);
        if (n === 0)
          throw new Error(`${where}: the log ends before the item (${done} of ${at.length} bytes)`);
        done += n;
      }
    } finally {
      closeSync(fd);
    }
    if (sha256Hex(bytes) !== at.hash)
      throw new Error(
        `${where}: the bytes changed since the log was opened (sha256 ${at.hash.slice(0, 12)}… expected)`,
      );
    const entry = decodeEntryLine(bytes, this.version);
    if (entry.t !== 'item' || entry.item.id !== id)
      throw new Error(
        `${where}: the line holds ${entry.t === 'item' ? `item ${entry.item.id}` : `a ${entry.t} entry`}`,
      );
    return entry.item;
  }

  write(unit: readonly LogEntry[]): readonly LineLocation[] {
    if (!this.appender)
      throw new Error(
        `conversation ${this.conversation} agent ${this.agent} is ${this.mode.readOnly ? 'open read-only' : 'closed'}`,
      );
    const { text, lastHash, lines } = encodeEntries(unit, this.head);
    const base = this.appender.size;
    this.appender.append(text);
    this.head = lastHash;
    this.lines += unit.length;
    const checkpoints: Checkpoint[] = [];
    for (const e of unit) {
      if (e.t === 'item') {
        this.items++;
        this.tip = e.item.id;
      } else if (e.t === 'tip') this.tip = e.tip;
      else if (e.t === 'checkpoint') checkpoints.push(e.checkpoint);
      else this.turn = Math.max(this.turn, e.turn);
    }
    // The log is durable now; the index follows (a crash here leaves it one unit behind, fixed on open).
    try {
      const st = this.ws.statements();
      st.db.transaction(() => {
        st.updateHistory.run(
          this.tip,
          this.turn,
          this.items,
          this.lines,
          this.head,
          this.conversation,
          this.agent,
        );
        for (const c of checkpoints)
          st.upsertCheckpoint.run(
            this.conversation,
            this.agent,
            c.label,
            c.at,
            c.turn,
            c.time,
            JSON.stringify(c.files),
          );
      })();
    } catch (err) {
      // The unit is durable in the log, which is the truth: failing the commit now would make the
      // caller retry a turn that is already written. The row stays behind and is rebuilt on next open.
      process.emitWarning(
        `glyphfold: workspace index not updated for conversation ${this.conversation} agent ${this.agent} (the log is; it is reindexed on next open): ${(err as Error).message}`,
      );
    }
    const at = lines.map((l) => ({ ...l, offset: base + l.offset }));
    if (!this.handedOver) {
      const tree = this.loaded.tree!;
      unit.forEach((e, i) =>
        applyEntry(tree.state, e, this.lines - unit.length + 1 + i, tree.problems, at[i]),
      );
    }
    return at;
  }

  createFork(conversation: string, lineage: Lineage, system?: string): HistoryBackend {
    validateId('conversation', conversation);
    if (this.ws.conversation(conversation))
      throw new Error(`fork: conversation ${conversation} already exists in ${this.ws.dir}`);
    return new DiskBackend(this.ws, conversation, this.agent, {
      readOnly: false,
      acceptDamage: false,
      lineage,
      ...(system !== undefined ? { system } : {}),
    });
  }

  newConversationId(): string {
    return this.ws.newConversationId();
  }

  close(): void {
    this.appender?.close();
    this.appender = undefined;
    this.release?.();
    this.release = undefined;
  }
}
