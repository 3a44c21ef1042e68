/**
 * `PostgresStore`: the record in a PostgreSQL database, shared by many harness hosts, with the same
 * guarantees as the folder `Workspace` (both pass `test/tree/history.case.ts`):
 *
 * - **Whole turns.** A unit (a turn and its commit mark, a branch, a checkpoint) is one transaction: a
 *   host killed at any instant leaves all of it or none of it, and a reader's snapshot holds only
 *   committed units (PostgreSQL never shows uncommitted rows to another session).
 * - **One writer per conversation-and-agent.** A writer takes a session-level advisory lock on a
 *   connection of its own and keeps it while the history is open. PostgreSQL releases it when that
 *   connection ends, so a dead host never locks a conversation out. A second writer gets
 *   `HistoryLockedError` naming the holder.
 * - **The hash chain.** Each line is stored exactly as the folder store writes it (canonical JSON
 *   carrying the hash of the line before) and checked by the same parser on load; the row of each
 *   history records the committed line count and the hash of the last line, so a cut or rewritten
 *   history is reported, and a writer refuses to write on top of it.
 * - **Reconnects.** When the connection drops (a server restart, a failover), the next write connects
 *   again, takes the lock again and checks that the history is where it left it; a commit whose
 *   outcome was unknown (the connection died during COMMIT) is found committed or retried, never
 *   written twice.
 *
 * Opening a history reads its index in pages of `loadBatch` lines inside one snapshot: per line its
 * number, hash, `prev`, and for an item its id and parent, plus the bodies of the first `retainBytes`
 * of items (and of the small non-item lines). The other bodies stay in the table (out of line, TOAST)
 * and are read back by primary key when asked for, in batches for a path, each checked against the
 * hash it was indexed with: an open history holds an index, not its items. With `verifyOnOpen` (the
 * default) the server hashes every body while the index is read, so a line altered in the table is
 * reported on open as the folder store reports it, without the bodies crossing the network. File
 * snapshots of checkpoints (blobs) are fetched only when a restore needs them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import {
  decodeEntryValue,
  encodeEntries,
  encodeHeader,
  LOG_VERSION,
  LogParser,
} from '../../transcript/log.js';
import type {
  Checkpoint,
  LineLocation,
  LogEntry,
  LogHeader,
  LogProblem,
  Lineage,
  ParsedLog,
} from '../../transcript/log.js';
import { sha256Hex } from '../../transcript/hash.js';
import type { Item } from '../../transcript/items.js';
import {
  HistoryLockedError,
  systemMismatch,
  type BlobStore,
  type ConversationInfo,
  type CreateHistoryOptions,
  type HistoryBackend,
  type HistoryStore,
  type LoadedLog,
} from '../../tree/backend.js';
import { AgentHistory, type HistoryOptions } from '../../tree/history.js';
import { applyEntry, emptyState, type TreeState } from '../../tree/state.js';
import { validateId } from '../ids.js';
import { DAMAGE, LogIntegrityError } from '../workspace.js';
import { migrate, quoteIdent, validateSchemaName } from './schema.js';
import { SyncReader } from './sync-reader.js';

export interface PostgresStoreOptions extends HistoryOptions {
  /** `postgres://user:password@host:port/database` (or give `pool`). */
  connectionString?: string;
  /** Settings for the `pg` pool used by readers and store queries (`connectionString` is merged in). */
  pool?: pg.PoolConfig;
  /** Schema holding the tables (default `glyphfold`); one database can hold several stores. */
  schema?: string;
  /** Lines fetched per query when a history is opened (default 500). */
  loadBatch?: number;
  /**
   * Bytes of item lines an open history keeps in memory (default `DEFAULT_RETAIN_BYTES`, 16 MiB): the
   * first ones, fetched while the history opens; the others are read back from the table when asked
   * for (a blocking round trip on a connection of the store's reader). 0 keeps none.
   */
  retainBytes?: number;
  /**
   * Hash every stored body on the server while a history opens (default true), so a line altered in
   * the table is reported on open (`problems`; a writer refuses it). False: opening reads the index
   * alone, and an altered body is found when it is read back (an error naming the item).
   */
  verifyOnOpen?: boolean;
  /** How long a writer keeps trying to reconnect after its connection dropped (default 30 000 ms). */
  reconnectTimeoutMs?: number;
}

export interface PostgresHistoryOptions extends CreateHistoryOptions {
  /** Open without the writer lock; every write rejects. Damage is reported, never refused. */
  readOnly?: boolean;
  /** Open for writing even though the committed part is damaged (problems stay reported). */
  acceptDamage?: boolean;
}

/** The index columns of one `entries` row (schema version 2), written beside its body. */
interface RowIndex {
  /** sha256 (hex) of the line's UTF-8 bytes. */
  hash: string;
  /** The hash the line carries (`null` for the header). */
  prev: string | null;
  /** For an item line, the item's id and parent; `null` for other lines. */
  item: string | null;
  parent: string | null;
}

/** One row of the index as `loadFrom` reads it: the body only where it is needed on open. */
interface IndexRow {
  line: number;
  hash: string;
  prev: string | null;
  item: string | null;
  parent: string | null;
  length: number;
  /** False when the server found the body's hash differs from `hash` (`verifyOnOpen`). */
  intact: boolean;
  body: string | null;
}

/** The index of the lines `encodeEntries` made for `unit` after the line hashed `head`. */
function indexOf(unit: readonly LogEntry[], head: string, lines: readonly LineLocation[]): RowIndex[] {
  return unit.map((e, i) => ({
    hash: lines[i]!.hash,
    prev: i === 0 ? head : lines[i - 1]!.hash,
    item: e.t === 'item' ? e.item.id : null,
    parent: e.t === 'item' ? e.item.parent : null,
  }));
}

interface HistoryRow {
  tip: string | null;
  turn: number;
  items: number;
  lines: number;
  head: string;
}

/** SQLSTATE classes and messages that mean the connection is gone, not that the statement was wrong. */
function isConnectionLoss(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  if (/^(08|57P0)/.test(code)) return true; // connection exception, admin/crash shutdown
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN'].includes(code))
    return true;
  return /Connection terminated|connection not open|Client has encountered a connection error|not queryable/i.test(
    (err as Error).message ?? '',
  );
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class PostgresStore implements HistoryStore {
  /** The pool of readers and store queries. */
  readonly pool: pg.Pool;
  readonly schema: string;
  private readonly clientConfig: pg.ClientConfig;
  private readonly historyOptions: HistoryOptions;
  /** @internal */
  readonly loadBatch: number;
  /** @internal */
  readonly reconnectTimeoutMs: number;
  /** @internal */
  readonly retainBytes: number | undefined;
  /** @internal */
  readonly verifyOnOpen: boolean;
  private reader: SyncReader | undefined;
  private ready: Promise<void> | undefined;
  private readonly open = new Set<PgBackend>();
  private closed = false;

  /**
   * Connects lazily: nothing happens until the first call, which applies any missing schema migration.
   * `new PostgresStore('postgres://…')` or `new PostgresStore({ connectionString, schema })`.
   */
  constructor(options: string | PostgresStoreOptions) {
    const o: PostgresStoreOptions = typeof options === 'string' ? { connectionString: options } : options;
    const {
      connectionString,
      pool,
      schema,
      loadBatch,
      reconnectTimeoutMs,
      retainBytes,
      verifyOnOpen,
      ...history
    } = o;
    this.schema = validateSchemaName(schema ?? 'glyphfold');
    this.retainBytes = retainBytes;
    this.verifyOnOpen = verifyOnOpen ?? true;
    this.historyOptions = history;
    this.loadBatch = loadBatch ?? 500;
    this.reconnectTimeoutMs = reconnectTimeoutMs ?? 30_000;
    const application_name = `glyphfold pid ${process.pid} on ${hostname()}`.slice(0, 63);
    this.clientConfig = {
      ...(pool ?? {}),
      ...(connectionString !== undefined ? { connectionString } : {}),
      application_name,
    };
    if (this.clientConfig.connectionString === undefined && pool === undefined)
      throw new TypeError('PostgresStore: expected a connection string or { connectionString } / { pool }');
    this.pool = new pg.Pool(this.clientConfig);
    // An idle pooled connection that dies (a server restart) must not crash the process; the pool
    // drops it and the next query connects again.
    this.pool.on('error', () => {});
  }

  /** `"schema".table`, for SQL. */
  /** @internal */
  t(table: string): string {
    return `${quoteIdent(this.schema)}.${table}`;
  }

  /** Applies missing migrations (once per store; concurrent hosts are serialised by an advisory lock). */
  migrate(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('PostgresStore is closed'));
    this.ready ??= (async () => {
      const client = await this.pool.connect();
      try {
        await migrate(client, this.schema);
      } finally {
        client.release();
      }
    })().catch((err: unknown) => {
      this.ready = undefined; // a later call tries again (the server may have been starting)
      throw err;
    });
    return this.ready;
  }

  /** @internal the connection that reads dropped item bodies back, synchronously (started on first use). */
  syncReader(): SyncReader {
    if (this.closed) throw new Error('PostgresStore is closed');
    if (!this.reader?.usable) this.reader = new SyncReader(this.clientConfig);
    return this.reader;
  }

  /** @internal a dedicated connection (a writer's session), not from the pool. */
  async connect(): Promise<pg.Client> {
    const client = new pg.Client(this.clientConfig);
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    return client;
  }

  /**
   * Opens the history of `agent` in `conversation`, creating both when new. For writing (the default)
   * it takes the writer lock: a second writer, on this host or another, gets `HistoryLockedError`.
   * Close it to release the lock (a host that dies releases it with its connection).
   */
  async history(
    conversation: string,
    agent = 'main',
    options: PostgresHistoryOptions = {},
  ): Promise<AgentHistory<true>> {
    await this.migrate();
    const backend = await PgBackend.open(this, conversation, agent, {
      readOnly: options.readOnly ?? false,
      acceptDamage: options.acceptDamage ?? false,
      ...(options.system !== undefined ? { system: options.system } : {}),
    });
    try {
      return new AgentHistory<true>(backend, this.historyOptions);
    } catch (err) {
      await backend.close();
      throw err;
    }
  }

  /** The conversation `id`, or `undefined` when it has no history. */
  async conversation(id: string): Promise<ConversationInfo | undefined> {
    validateId('conversation', id);
    await this.migrate();
    const { rows } = await this.pool.query<{
      created: string;
      forked_from_conversation: string | null;
      forked_from_agent: string | null;
      forked_from_tip: string | null;
    }>(`SELECT * FROM ${this.t('conversations')} WHERE id = $1`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    const agents = await this.pool.query<{ agent: string }>(
      `SELECT agent FROM ${this.t('histories')} WHERE conversation = $1 ORDER BY agent COLLATE "C"`,
      [id],
    );
    return {
      id,
      created: row.created,
      agents: agents.rows.map((r) => r.agent),
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

  /** Every conversation id, sorted by code point (as the folder store sorts them). */
  async conversations(): Promise<string[]> {
    await this.migrate();
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM ${this.t('conversations')} ORDER BY id COLLATE "C"`,
    );
    return rows.map((r) => r.id);
  }

  /** Conversations forked from `id`, sorted. */
  async forksOf(id: string): Promise<string[]> {
    await this.migrate();
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM ${this.t('conversations')} WHERE forked_from_conversation = $1 ORDER BY id COLLATE "C"`,
      [id],
    );
    return rows.map((r) => r.id);
  }

  /** Content-addressed bytes in the `blobs` table (checkpoint file snapshots), fetched on demand. */
  readonly blobs: BlobStore<true> = {
    put: async (bytes) => {
      const hash = sha256Hex(bytes);
      await this.pool.query(
        `INSERT INTO ${this.t('blobs')} (hash, bytes) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`,
        [hash, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
      return hash;
    },
    get: async (hash) => {
      const { rows } = await this.pool.query<{ bytes: Buffer }>(
        `SELECT bytes FROM ${this.t('blobs')} WHERE hash = $1`,
        [hash],
      );
      const bytes = rows[0]?.bytes;
      if (!bytes) throw new Error(`blob ${hash} is missing from ${this.t('blobs')}`);
      const found = sha256Hex(bytes);
      if (found !== hash) throw new Error(`blob ${hash} is corrupt: expected sha256 ${hash}, found ${found}`);
      return bytes;
    },
  };

  /**
   * The committed lines of one history, each with its newline, in pages of `loadBatch` rows from one
   * snapshot: the same bytes the folder store keeps in `logs/<conversation>/<agent>.jsonl`, so writing
   * them there moves a history to a folder (it is indexed on first open).
   */
  async *exportLog(conversation: string, agent = 'main'): AsyncGenerator<string> {
    validateId('conversation', conversation);
    validateId('agent', agent);
    await this.migrate();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query<{ lines: number }>(
        `SELECT lines FROM ${this.t('histories')} WHERE conversation = $1 AND agent = $2`,
        [conversation, agent],
      );
      if (!rows[0])
        throw new RangeError(
          `conversation ${conversation} agent ${agent} has no history in ${this.t('histories')}`,
        );
      for (let last = 0; last < rows[0].lines;) {
        const page = await client.query<{ line: number; body: string }>(
          `SELECT line, body FROM ${this.t('entries')} WHERE conversation = $1 AND agent = $2 AND line > $3 AND line <= $4
            ORDER BY line LIMIT $5`,
          [conversation, agent, last, rows[0].lines, this.loadBatch],
        );
        if (page.rows.length === 0) break;
        for (const r of page.rows) yield r.body + '\n';
        last = page.rows[page.rows.length - 1]!.line;
      }
      await client.query('COMMIT');
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
  }

  /**
   * Stores a log (the text of a folder store's `<agent>.jsonl`, as a string, bytes, or chunks such as a
   * file's read stream) as a new history, lines unchanged: conversation, agent and lineage come from its
   * header. The whole log is checked first; a damaged one (broken chain, invalid lines) is refused with
   * its problems, an uncommitted tail is left out and reported. One transaction, under the writer lock.
   * Pass `blobs` (the source workspace's `blobs`) to copy the file snapshots of its checkpoints too.
   * The log's lines are held in memory until stored.
   */
  async importLog(
    log: string | Uint8Array | AsyncIterable<string | Uint8Array>,
    options: { blobs?: BlobStore<boolean> } = {},
  ): Promise<{ conversation: string; agent: string; lines: number; items: number; problems: LogProblem[] }> {
    await this.migrate();
    const bodies: string[] = [];
    const hashes: string[] = [];
    /** Line number → [item id, parent] of each committed item line. */
    const itemAt = new Map<number, [string, string | null]>();
    const state = emptyState();
    const ignored: LogProblem[] = [];
    const parser = new LogParser({
      keepEntries: false,
      onCommitted: (line, entry, at) => {
        if (entry.t === 'item') itemAt.set(line, [entry.item.id, entry.item.parent]);
        hashes[line - 1] = at.hash;
        applyEntry(state, entry, line, ignored);
      },
    });
    const feed = (bytes: Uint8Array): void => {
      for (let start = 0; ;) {
        const end = bytes.indexOf(0x0a, start);
        if (end < 0) {
          carry = bytes.subarray(start);
          return;
        }
        const line = bytes.subarray(start, end);
        parser.line(line);
        bodies.push(Buffer.from(line).toString('utf8'));
        start = end + 1;
      }
    };
    let carry: Uint8Array = new Uint8Array(0);
    const chunks =
      typeof log === 'string' || log instanceof Uint8Array
        ? [log]
        : (log as AsyncIterable<string | Uint8Array>);
    for await (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      feed(carry.length > 0 ? Buffer.concat([carry, bytes]) : bytes);
    }
    const parsed = parser.finish(carry.length);
    const damage = parsed.problems.filter((p) => DAMAGE.has(p.kind));
    const header = parsed.header;
    if (damage.length > 0 || !header)
      throw new LogIntegrityError(
        `importLog: the log is damaged; nothing was stored:\n  ${damage.map((p) => p.message).join('\n  ')}`,
        damage,
      );
    const { conversation, agent } = header;
    validateId('conversation', conversation);
    validateId('agent', agent);
    bodies.length = parsed.committedLines; // an uncommitted tail is not stored
    hashes[0] = parsed.commitHashes.get(1)!;
    // The chain was checked (a damaged log is refused above): each line's prev is the hash before it.
    const index: RowIndex[] = bodies.map((_, i) => ({
      hash: hashes[i]!,
      prev: i === 0 ? null : hashes[i - 1]!,
      item: itemAt.get(i + 1)?.[0] ?? null,
      parent: itemAt.get(i + 1)?.[1] ?? null,
    }));
    // The file snapshots its checkpoints name, from the source store (`workspace.blobs`), before the lines.
    if (options.blobs)
      for (const c of state.checkpoints.values())
        for (const hash of Object.values(c.files))
          if (hash !== null) await this.blobs.put(await options.blobs.get(hash));
    const backend = await PgBackend.lockOnly(this, conversation, agent);
    try {
      await backend.insertWhole(header, bodies, index, parsed.lastHash!, {
        tip: state.tip,
        turn: state.turn,
        items: state.order.length,
        checkpoints: [...state.checkpoints.values()],
      });
    } finally {
      await backend.close();
    }
    return {
      conversation,
      agent,
      lines: bodies.length,
      items: state.order.length,
      problems: parsed.problems,
    };
  }

  /** @internal */
  track(b: PgBackend, on: boolean): void {
    if (on) this.open.add(b);
    else this.open.delete(b);
  }

  /** Closes histories still open (releasing their locks) and the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.open].map((b) => b.close()));
    await this.reader?.close();
    await this.pool.end();
  }
}

/** The lock key of one conversation-and-agent in one schema: 64 bits of a sha256, as PostgreSQL's bigint. */
function lockKey(schema: string, conversation: string, agent: string): string {
  const digest = createHash('sha256').update(`glyphfold\0${schema}\0${conversation}\0${agent}`).digest();
  return digest.readBigInt64BE(0).toString();
}

interface Mode {
  readOnly: boolean;
  acceptDamage: boolean;
  lineage?: Lineage;
  /** The system prompt of a new history (an existing one must have been created with it). */
  system?: string;
}

/** The PostgreSQL backend of one conversation-and-agent. */
class PgBackend implements HistoryBackend<true> {
  readonly async = true as const;
  private session: pg.Client | undefined;
  /** The session connection reported an error or ended: the lock may be gone with it. */
  private lost = false;
  private closed = false;
  private readonly key: string;
  private loaded!: LoadedLog & { tree: { state: TreeState; problems: LogProblem[] } };
  /** Set once a history took the tree: from then on it applies what is written (a fork writes before). */
  private handedOver = false;
  /** Format version of the history (its header's), to decode lines read back. */
  private version = LOG_VERSION;
  private head = '';
  private lines = 0;
  private tip: string | null = null;
  private turn = 0;
  private items = 0;

  private constructor(
    private readonly store: PostgresStore,
    readonly conversation: string,
    readonly agent: string,
    private readonly mode: Mode,
  ) {
    this.key = lockKey(store.schema, conversation, agent);
  }

  private get what(): string {
    return `conversation ${this.conversation} agent ${this.agent}`;
  }

  static async open(
    store: PostgresStore,
    conversation: string,
    agent: string,
    mode: Mode,
  ): Promise<PgBackend> {
    validateId('conversation', conversation);
    validateId('agent', agent);
    const b = new PgBackend(store, conversation, agent, mode);
    store.track(b, true);
    try {
      if (mode.readOnly) {
        const client = await store.pool.connect();
        try {
          await b.loadFrom(client);
        } finally {
          client.release();
        }
      } else {
        const client = await b.takeSession();
        await b.create(client);
        await b.loadFrom(client);
      }
      const recorded = b.loaded.header?.system;
      if (mode.system !== undefined && b.loaded.header && recorded !== mode.system)
        throw new Error(systemMismatch(conversation, agent, recorded));
    } catch (err) {
      await b.close();
      throw err;
    }
    return b;
  }

  get blobs(): BlobStore<true> {
    return this.store.blobs;
  }

  load(): LoadedLog {
    this.handedOver = true;
    return this.loaded;
  }

  /** Connects a session and takes the writer lock on it, or throws `HistoryLockedError`. */
  private async takeSession(): Promise<pg.Client> {
    const client = await this.store.connect();
    this.lost = false;
    const onLoss = (): void => {
      if (this.session === client) this.lost = true;
    };
    client.on('error', onLoss);
    client.on('end', onLoss);
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [
        this.key,
      ]);
      if (!rows[0]?.ok) throw new HistoryLockedError(`${this.what} ${await this.holder(client)}`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    this.session = client;
    return client;
  }

  /** Who holds the lock, as far as `pg_locks` and `pg_stat_activity` tell. */
  private async holder(client: pg.Client): Promise<string> {
    const big = BigInt(this.key);
    const classid = Number((big >> 32n) & 0xffffffffn);
    const objid = Number(big & 0xffffffffn);
    try {
      const { rows } = await client.query<{ pid: number; app: string | null; addr: string | null }>(
        `SELECT l.pid, a.application_name AS app, a.client_addr::text AS addr
           FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1`,
        [classid, objid],
      );
      const r = rows[0];
      if (r)
        return `is open for writing by another session (PostgreSQL backend ${r.pid}, ${r.app || 'unnamed client'}${r.addr ? ` from ${r.addr}` : ''})`;
    } catch {
      // Only the message suffers.
    }
    return 'is open for writing by another session (its advisory lock is held)';
  }

  /** @internal a backend that only holds the writer lock (for `importLog`). */
  static async lockOnly(store: PostgresStore, conversation: string, agent: string): Promise<PgBackend> {
    const b = new PgBackend(store, conversation, agent, { readOnly: false, acceptDamage: false });
    store.track(b, true);
    try {
      await b.takeSession();
    } catch (err) {
      await b.close();
      throw err;
    }
    return b;
  }

  /** @internal stores a whole checked log as a new history, in one transaction. */
  async insertWhole(
    header: LogHeader,
    bodies: string[],
    index: readonly RowIndex[],
    head: string,
    s: { tip: string | null; turn: number; items: number; checkpoints: Checkpoint[] },
  ): Promise<void> {
    const client = this.session!;
    const t = (x: string): string => this.store.t(x);
    const lineage = header.forkedFrom;
    await client.query('BEGIN');
    try {
      const exists = await client.query(
        `SELECT 1 FROM ${t('histories')} WHERE conversation = $1 AND agent = $2`,
        [this.conversation, this.agent],
      );
      if (exists.rowCount)
        throw new Error(
          `importLog: ${this.what} already has a history in ${t('histories')}; nothing was stored`,
        );
      await this.insertConversation(client, header.created, lineage);
      await client.query(
        `INSERT INTO ${t('histories')} (conversation, agent, created, tip, turn, items, lines, head)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [this.conversation, this.agent, header.created, s.tip, s.turn, s.items, bodies.length, head],
      );
      for (let from = 0; from < bodies.length; from += 1000) {
        const batch = bodies.slice(from, from + 1000);
        const idx = index.slice(from, from + 1000);
        await client.query(
          `INSERT INTO ${t('entries')} (conversation, agent, line, body, hash, prev, item, parent)
           SELECT $1, $2, l, b, h, p, i, ip
             FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u (l, b, h, p, i, ip)`,
          [
            this.conversation,
            this.agent,
            batch.map((_, i) => from + i + 1),
            batch,
            idx.map((x) => x.hash),
            idx.map((x) => x.prev),
            idx.map((x) => x.item),
            idx.map((x) => x.parent),
          ],
        );
      }
      for (const c of s.checkpoints)
        await client.query(
          `INSERT INTO ${t('checkpoints')} (conversation, agent, label, at, turn, time, files) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [this.conversation, this.agent, c.label, c.at, c.turn, c.time, JSON.stringify(c.files)],
        );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /** The conversation's row (kept when a history of another agent made it first). */
  private async insertConversation(
    client: pg.Client,
    created: string,
    lineage: Lineage | undefined,
  ): Promise<void> {
    await client.query(
      `INSERT INTO ${this.store.t('conversations')} (id, created, forked_from_conversation, forked_from_agent, forked_from_tip)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
      [
        this.conversation,
        created,
        lineage?.conversation ?? null,
        lineage?.agent ?? null,
        lineage?.tip ?? null,
      ],
    );
  }

  /** Creates the conversation and the history with its header line when they are new. */
  private async create(client: pg.Client): Promise<void> {
    const t = (x: string): string => this.store.t(x);
    const exists = await client.query(
      `SELECT 1 FROM ${t('histories')} WHERE conversation = $1 AND agent = $2`,
      [this.conversation, this.agent],
    );
    if (exists.rowCount) {
      if (this.mode.lineage)
        throw new Error(
          `fork: conversation ${this.conversation} already has a history for agent ${this.agent}`,
        );
      return;
    }
    const lineage = this.mode.lineage;
    const header: LogHeader = {
      t: 'header',
      v: LOG_VERSION,
      conversation: this.conversation,
      agent: this.agent,
      created: new Date().toISOString(),
      ...(lineage ? { forkedFrom: lineage } : {}),
      ...(this.mode.system !== undefined ? { system: this.mode.system } : {}),
    };
    const { text, hash } = encodeHeader(header);
    await client.query('BEGIN');
    try {
      await this.insertConversation(client, header.created, lineage);
      await client.query(
        `INSERT INTO ${t('histories')} (conversation, agent, created, tip, turn, items, lines, head)
         VALUES ($1, $2, $3, NULL, 0, 0, 1, $4)`,
        [this.conversation, this.agent, header.created, hash],
      );
      await client.query(
        `INSERT INTO ${t('entries')} (conversation, agent, line, body, hash) VALUES ($1, $2, 1, $3, $4)`,
        [this.conversation, this.agent, text.slice(0, -1), hash],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /**
   * Reads the row and the index of the lines in one snapshot (REPEATABLE READ), `loadBatch` lines per
   * query, through the same parser as a log file: the chain is checked over each line's hash and
   * `prev`. Bodies come along only for lines that are not items (small), for items within the first
   * `retainBytes`, and for lines the index cannot stand for (no item id, or, with `verifyOnOpen`, a body
   * whose hash is not the indexed one: the parser then reports the break where the folder store would).
   * Compares what it found with what the row records as committed.
   */
  private async loadFrom(client: pg.ClientBase): Promise<void> {
    const t = (x: string): string => this.store.t(x);
    const tree = emptyState(
      (at, id) => this.readItems([{ at, id }])[0]!,
      this.store.retainBytes,
      (nodes) => this.readItems(nodes.map((n) => ({ at: n.at!, id: n.id }))),
    );
    const treeProblems: LogProblem[] = [];
    /** Lines given to the parser by their index alone, until their unit is committed. */
    const indexOnly = new Set<number>();
    const parser = new LogParser({
      keepEntries: false,
      onCommitted: (line, entry, at) =>
        applyEntry(tree, entry, line, treeProblems, { ...at, offset: line }, indexOnly.delete(line)),
    });
    const budget = tree.retainBytes;
    let wanted = 0; // item bytes whose bodies were fetched on open (at most `budget`)
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    let parsed: ParsedLog;
    let row: HistoryRow | undefined;
    try {
      const r = await client.query<HistoryRow>(
        `SELECT tip, turn, items, lines, head FROM ${t('histories')} WHERE conversation = $1 AND agent = $2`,
        [this.conversation, this.agent],
      );
      row = r.rows[0];
      if (!row) throw new RangeError(`${this.what} has no history in ${t('histories')}`);
      let last = 0;
      for (;;) {
        // The page is chosen first, so the hash check (and any body) touches only its rows; OFFSET 0
        // keeps the planner from folding `q` into the outer query, which would hash each body twice. A
        // body is only sent where `body` is asked for; the others stay out of line on the server.
        const page = await client.query<IndexRow>(
          `SELECT line, hash, prev, item, parent, length, intact,
                  CASE WHEN item IS NULL OR NOT intact THEN body END AS body
             FROM (SELECT line, hash, prev, item, parent, body, octet_length(body) AS length,
                          CASE WHEN $5 THEN encode(sha256(convert_to(body, 'UTF8')), 'hex') = hash
                               ELSE true END AS intact
                     FROM (SELECT * FROM ${t('entries')} WHERE conversation = $1 AND agent = $2 AND line > $3
                            ORDER BY line LIMIT $4) p
                   OFFSET 0) q
            ORDER BY line`,
          [this.conversation, this.agent, last, this.store.loadBatch, this.store.verifyOnOpen],
        );
        // Bodies of the first items, within the budget: read whole, as the retained part of the tree.
        const keep: number[] = [];
        for (const x of page.rows)
          if (x.body === null && wanted + x.length <= budget) {
            keep.push(x.line);
            wanted += x.length;
          }
        const kept = new Map<number, string>();
        if (keep.length > 0) {
          const b = await client.query<{ line: number; body: string }>(
            `SELECT line, body FROM ${t('entries')} WHERE conversation = $1 AND agent = $2 AND line = ANY($3::int[])`,
            [this.conversation, this.agent, keep],
          );
          for (const { line, body } of b.rows) kept.set(line, body);
        }
        for (const x of page.rows) {
          // A gap in line numbers is a line removed behind our back: the parser sees an empty line there.
          while (++last < x.line) parser.line(new Uint8Array(0));
          const body = x.body ?? kept.get(x.line);
          if (body !== undefined) parser.line(Buffer.from(body, 'utf8'));
          else {
            indexOnly.add(x.line);
            parser.indexedItem(x.length, x.hash, x.prev, x.item!, x.parent);
          }
        }
        if (page.rows.length < this.store.loadBatch) break;
      }
      parsed = parser.finish();
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
    this.version = parsed.header?.v ?? LOG_VERSION;
    const problems = [...parsed.problems];
    if (row.lines > parsed.committedLines)
      problems.push({
        kind: 'truncated',
        line: parsed.committedLines,
        message: `history truncated: the histories row records ${row.lines} committed lines, the table holds ${parsed.committedLines}`,
      });
    else if (parsed.commitHashes.get(row.lines) !== row.head)
      problems.push({
        kind: 'truncated',
        line: row.lines,
        message: `history rewritten: line ${row.lines} is not the commit the histories row records (hash ${row.head.slice(0, 12)}…)`,
      });
    const damage = problems.filter((p) => DAMAGE.has(p.kind));
    if (damage.length > 0 && !this.mode.readOnly && !this.mode.acceptDamage)
      throw new LogIntegrityError(
        `${this.what}: the history in ${t('entries')} is damaged; refusing to write on top of it (open read-only to inspect, or pass acceptDamage):\n  ` +
          damage.map((p) => p.message).join('\n  '),
        damage,
      );
    // A writer continues from the row: lines past it (never written by a commit) would collide.
    this.lines = row.lines;
    this.head = row.head;
    this.tip = row.tip;
    this.turn = row.turn;
    this.items = row.items;
    this.loaded = {
      header: parsed.header,
      entries: [],
      problems,
      tree: { state: tree, problems: treeProblems },
    };
  }

  /**
   * Reads back items the history dropped from memory (one query for all of them), each checked against
   * the hash it was indexed with: a row changed or removed under an open history is an error naming the
   * conversation, the agent and the item, never a wrong item. Blocks until the rows arrive.
   */
  private readItems(wanted: readonly { at: LineLocation; id: string }[]): Item[] {
    const t = this.store.t('entries');
    const where = (w: { at: LineLocation; id: string }): string =>
      `${this.what}: item ${w.id} (line ${w.at.offset} of ${t})`;
    type Row = { line: number; hash: string; value?: unknown; error?: string };
    let rows: Row[];
    try {
      rows = this.store
        .syncReader()
        .query<Row>(
          `SELECT line, body FROM ${t} WHERE conversation = $1 AND agent = $2 AND line = ANY($3::int[])`,
          [this.conversation, this.agent, wanted.map((w) => w.at.offset)],
          { parseBody: true },
        );
    } catch (err) {
      throw new Error(
        `${where(wanted[0]!)}${wanted.length > 1 ? ` and ${wanted.length - 1} more` : ''}: cannot be read back: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const byLine = new Map(rows.map((r) => [r.line, r]));
    return wanted.map((w) => {
      const r = byLine.get(w.at.offset);
      if (r === undefined) throw new Error(`${where(w)}: the row is gone from the table`);
      // The reader hashed the UTF-8 bytes of the body as stored, before parsing them.
      if (r.hash !== w.at.hash)
        throw new Error(
          `${where(w)}: the row changed since the history was opened (sha256 ${w.at.hash.slice(0, 12)}… expected, found ${r.hash.slice(0, 12)}…)`,
        );
      if (r.error !== undefined) throw new Error(`${where(w)}: not valid JSON (${r.error})`);
      const entry = decodeEntryValue(r.value, this.version);
      if (entry.t !== 'item' || entry.item.id !== w.id)
        throw new Error(
          `${where(w)}: the line holds ${entry.t === 'item' ? `item ${entry.item.id}` : `a ${entry.t} entry`}`,
        );
      return entry.item;
    });
  }

  /** The session, reconnected and re-locked when it was lost. Returns the row as the database has it. */
  private async liveSession(): Promise<{ client: pg.Client; row?: { lines: number; head: string } }> {
    if (this.session && !this.lost) return { client: this.session };
    const old = this.session;
    this.session = undefined;
    await old?.end().catch(() => {});
    const deadline = Date.now() + this.store.reconnectTimeoutMs;
    const lockDeadline = Date.now() + Math.min(2000, this.store.reconnectTimeoutMs);
    for (let attempt = 0; ; attempt++) {
      try {
        const client = await this.takeSession();
        const { rows } = await client.query<{ lines: number; head: string }>(
          `SELECT lines, head FROM ${this.store.t('histories')} WHERE conversation = $1 AND agent = $2`,
          [this.conversation, this.agent],
        );
        return { client, ...(rows[0] ? { row: rows[0] } : {}) };
      } catch (err) {
        if (err instanceof HistoryLockedError) {
          // Our old backend may still be on its way out (it lets go of the lock when it notices its
          // client is gone): a short wait, then the lock is someone else's.
          if (Date.now() < lockDeadline) {
            await sleep(100);
            continue;
          }
          throw new HistoryLockedError(
            `${this.what}: the connection holding its writer lock was lost, and another writer took the history meanwhile: ${err.message}`,
          );
        }
        if (!isConnectionLoss(err) || Date.now() > deadline) throw err;
        await sleep(Math.min(1000, 50 * 2 ** attempt));
      }
    }
  }

  async write(unit: readonly LogEntry[]): Promise<readonly LineLocation[]> {
    if (this.closed || this.mode.readOnly)
      throw new Error(`${this.what} is ${this.mode.readOnly ? 'open read-only' : 'closed'}`);
    // The lines exactly as the folder store writes them (canonical JSON never holds a raw newline).
    const { text, lastHash, lines } = encodeEntries(unit, this.head);
    const bodies = text.slice(0, -1).split('\n');
    const index = indexOf(unit, this.head, lines);
    const next = { ...this.counters(), lines: this.lines + unit.length, head: lastHash };
    const checkpoints: Checkpoint[] = [];
    for (const e of unit) {
      if (e.t === 'item') {
        next.items++;
        next.tip = e.item.id;
      } else if (e.t === 'tip') next.tip = e.tip;
      else if (e.t === 'checkpoint') checkpoints.push(e.checkpoint);
      else next.turn = Math.max(next.turn, e.turn);
    }
    for (let attempt = 0; ; attempt++) {
      const { client, row } = await this.liveSession();
      if (row) {
        // Reconnected: the row tells whether the interrupted commit went through.
        if (row.lines === next.lines && row.head === next.head) break;
        if (row.lines !== this.lines || row.head !== this.head)
          throw new Error(
            `${this.what}: the history changed while this writer was disconnected (the database has ${row.lines} lines, this writer ${this.lines}); reopen it`,
          );
      }
      try {
        await this.commitUnit(client, bodies, index, next, checkpoints);
        break;
      } catch (err) {
        if (!isConnectionLoss(err) && !this.lost) throw err;
        this.lost = true;
        if (attempt >= 5) throw err;
      }
    }
    // Where each line now is (its row), so the history may drop the bodies and read them back.
    const at = lines.map((l, i) => ({ offset: this.lines + 1 + i, length: l.length, hash: l.hash }));
    if (!this.handedOver) {
      const tree = this.loaded.tree;
      unit.forEach((e, i) => applyEntry(tree.state, e, this.lines + 1 + i, tree.problems, at[i]));
    }
    this.lines = next.lines;
    this.head = next.head;
    this.tip = next.tip;
    this.turn = next.turn;
    this.items = next.items;
    return at;
  }

  private counters(): { tip: string | null; turn: number; items: number } {
    return { tip: this.tip, turn: this.turn, items: this.items };
  }

  /**
   * One statement, so one transaction and one round trip: the row moves from (lines, head) to the new
   * ones, and only if it did are the lines and checkpoints inserted. A row not where this writer left
   * it (which the lock should make impossible) writes nothing.
   */
  private async commitUnit(
    client: pg.Client,
    bodies: string[],
    index: readonly RowIndex[],
    next: HistoryRow,
    checkpoints: Checkpoint[],
  ): Promise<void> {
    const t = (x: string): string => this.store.t(x);
    const byLabel = new Map(checkpoints.map((c) => [c.label, c])); // one row per label and statement
    const cps = [...byLabel.values()].map((c) => ({ ...c, files: JSON.stringify(c.files) }));
    const { rows } = await client.query<{ moved: string }>(
      `WITH moved AS (
         UPDATE ${t('histories')} SET tip = $1, turn = $2, items = $3, lines = $4, head = $5
          WHERE conversation = $6 AND agent = $7 AND lines = $8 AND head = $9
         RETURNING 1
       ), lines AS (
         INSERT INTO ${t('entries')} (conversation, agent, line, body, hash, prev, item, parent)
         SELECT $6, $7, l, b, h, p, i, ip
           FROM unnest($10::int[], $11::text[], $13::text[], $14::text[], $15::text[], $16::text[]) AS u (l, b, h, p, i, ip)
          WHERE EXISTS (SELECT 1 FROM moved)
       ), cps AS (
         INSERT INTO ${t('checkpoints')} (conversation, agent, label, at, turn, time, files)
         SELECT $6, $7, c.label, c.at, c.turn, c.time, c.files
           FROM jsonb_to_recordset($12::jsonb) AS c (label text, at text, turn int, time text, files text)
          WHERE EXISTS (SELECT 1 FROM moved)
         ON CONFLICT (conversation, agent, label) DO UPDATE
           SET at = excluded.at, turn = excluded.turn, time = excluded.time, files = excluded.files
       )
       SELECT count(*) AS moved FROM moved`,
      [
        next.tip,
        next.turn,
        next.items,
        next.lines,
        next.head,
        this.conversation,
        this.agent,
        this.lines,
        this.head,
        bodies.map((_, i) => this.lines + 1 + i),
        bodies,
        JSON.stringify(cps),
        index.map((x) => x.hash),
        index.map((x) => x.prev),
        index.map((x) => x.item),
        index.map((x) => x.parent),
      ],
    );
    if (Number(rows[0]?.moved) !== 1)
      throw new Error(
        `${this.what}: the history row is not where this writer left it (${this.lines} lines); nothing was written`,
      );
  }

  async createFork(conversation: string, lineage: Lineage, system?: string): Promise<HistoryBackend<true>> {
    validateId('conversation', conversation);
    const { rowCount } = await this.store.pool.query(
      `SELECT 1 FROM ${this.store.t('conversations')} WHERE id = $1`,
      [conversation],
    );
    if (rowCount)
      throw new Error(
        `fork: conversation ${conversation} already exists in ${this.store.t('conversations')}`,
      );
    return PgBackend.open(this.store, conversation, this.agent, {
      readOnly: false,
      acceptDamage: false,
      lineage,
      ...(system !== undefined ? { system } : {}),
    });
  }

  newConversationId(): string {
    return 'c_' + randomBytes(6).toString('hex');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.store.track(this, false);
    const s = this.session;
    this.session = undefined;
    // Ending the session releases the advisory lock (PostgreSQL drops session locks with the connection).
    await s?.end().catch(() => {});
  }
}
