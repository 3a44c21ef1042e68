/**
 * AgentHistory: the append-only log of one agent in one conversation, as a session tree.
 *
 * All tree logic lives here once; a `HistoryBackend` only stores committed units and blobs. Items of a
 * turn are held in memory until `commit()`, which writes them with a commit mark as one durable unit.
 * Nothing here edits or removes an item: branching, rewinding and editing move the tip or add items.
 *
 * `AgentHistory<false>` (the folder workspace, memory) returns plain values; `AgentHistory<true>`
 * (PostgreSQL) returns promises from every call that writes (`commit`, `adopt`, `branch`, `fork`,
 * `checkpoint`, `rewind`, `restore`, `close`) and rejects instead of throwing; reads (`path`, `items`,
 * `tip`, …) and `append` are synchronous on both: the tree is held in memory, with the bodies of at
 * most `retainBytes` of items, and the backend reads the others back synchronously when asked.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Item, NewItem, ToolCallItem } from '../transcript/items.js';
import type { Checkpoint, LogEntry, LogHeader, LogProblem } from '../transcript/log.js';
import { canonicalJson } from '../transcript/canonical.js';
import { validateItem } from '../transcript/validate.js';
import type { Awaitable, BlobStore, HistoryBackend, StoreReturn } from './backend.js';
import { andThen as then, attempt, isPromise } from './awaitable.js';
import { extractiveDigest } from './digest.js';
import { restoreFiles, snapshotFiles, type FileRestore } from './files.js';
import { resumeCut, type ResumeOptions, type ResumeResult } from './resume.js';
import {
  applyEntry,
  bodiesOf,
  bodyOf,
  childrenOf,
  emptyState,
  nodePath,
  pathTo,
  type TreeState,
} from './state.js';

/** A tree operation that needs a turn boundary was called with an uncommitted turn pending. */
export class PendingTurnError extends Error {
  override name = 'PendingTurnError';
}

export interface HistoryOptions {
  /** Item id generator (default: `it_` + 12 random hex digits per opened history + a hex counter). */
  newId?: () => string;
  /** Clock for item times (default: `new Date()`). */
  now?: () => Date;
}

export interface RewindResult {
  /** The new tip: the digest when one was appended, else the checkpoint position. */
  tip: string | null;
  checkpoint: Checkpoint;
  /** Items of the previous path that are not on the new one. */
  abandoned: Item[];
  digest?: Item;
}

export interface RestoreResult {
  checkpoint: Checkpoint;
  /** Present when `code` was asked for. */
  files?: FileRestore & {
    /** Files the abandoned stretch touched that the checkpoint holds no snapshot of: left as they are. */
    notCovered: string[];
  };
  /** Present when `conversation` was asked for. */
  conversation?: RewindResult;
  /**
   * Tool calls in the abandoned stretch that are not file edits (their result reports no files, or
   * they have no result): whatever they did outside the files, no checkpoint can undo.
   */
  irreversible: ToolCallItem[];
}

export class AgentHistory<A extends boolean = false> {
  readonly conversation: string;
  readonly agent: string;
  /** The header of the log (lineage for forks). */
  readonly header: LogHeader | undefined;
  /** Problems found when the log was loaded (uncommitted tail, malformed lines, broken chain, …). */
  readonly problems: readonly LogProblem[];
  private readonly state: TreeState;
  private pending: Item[] = [];
  private pendingTip: string | null = null;
  private closed = false;
  /** An asynchronous write is in flight: the next call must wait for it (the tree changes after it). */
  private busy = false;
  private readonly newId: () => string;
  private readonly now: () => Date;
  private readonly backend: HistoryBackend<boolean>;
  private readonly isAsync: boolean;

  constructor(backend: HistoryBackend<A>, options: HistoryOptions = {}) {
    this.backend = backend as HistoryBackend<boolean>;
    this.isAsync = backend.async === true;
    this.conversation = backend.conversation;
    this.agent = backend.agent;
    // A random prefix per opened history plus a counter: unique across processes that take turns
    // writing one log, without paying for 8 random bytes per item.
    const prefix = 'it_' + randomBytes(6).toString('hex');
    let counter = 0;
    this.newId = options.newId ?? (() => prefix + (counter++).toString(16).padStart(4, '0'));
    this.now = options.now ?? (() => new Date());
    const loaded = backend.load();
    const problems = [...loaded.problems];
    if (loaded.tree) {
      this.state = loaded.tree.state;
      problems.push(...loaded.tree.problems);
    } else {
      this.state = emptyState();
      for (const { line, entry } of loaded.entries) applyEntry(this.state, entry, line, problems);
    }
    this.header = loaded.header;
    this.problems = problems;
  }

  /** The item the active path ends at, counting an uncommitted turn; `null` when the path is empty. */
  get tip(): string | null {
    return this.pending.length > 0 ? this.pendingTip : this.state.tip;
  }

  /**
   * The system prompt recorded when the history was created (an imported transcript's), or
   * `undefined`. Views and compaction send it unless the caller gives another.
   */
  get system(): string | undefined {
    return this.header?.system;
  }

  /** Last committed turn number. */
  get turn(): number {
    return this.state.turn;
  }

  /** True while `append()` has added items that `commit()` has not yet written. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** The active path root → tip, including an uncommitted turn. */
  path(): Item[] {
    const committed = pathTo(this.state, this.pending.length > 0 ? this.pending[0]!.parent : this.state.tip);
    if (this.pending.length === 0) return committed;
    // Pending items chain from the first one's parent (they may branch off the committed tip: edit).
    const byId = new Map(this.pending.map((i) => [i.id, i]));
    const tail: Item[] = [];
    for (let id: string | null = this.pendingTip; id !== null && byId.has(id); id = byId.get(id)!.parent)
      tail.push(byId.get(id)!);
    return committed.concat(tail.reverse());
  }

  /**
   * The path root → `itemId` (committed items): any branch of the tree, not only the active one.
   * `null` gives an empty path; an unknown id throws naming the history.
   */
  pathTo(itemId: string | null): Item[] {
    if (itemId !== null && !this.state.nodes.has(itemId))
      throw new RangeError(`pathTo: no item ${itemId} in ${this.where()}`);
    return pathTo(this.state, itemId);
  }

  /**
   * Every committed item, in log order (all branches). Items a disk history dropped from memory are
   * read back from the log, so this costs the whole log; `itemCount` does not.
   */
  items(): readonly Item[] {
    return bodiesOf(this.state, this.state.order);
  }

  /** Number of committed items (all branches), without reading any. */
  get itemCount(): number {
    return this.state.order.length;
  }

  get(id: string): Item | undefined {
    const node = this.state.nodes.get(id);
    return node ? bodyOf(this.state, node) : this.pending.find((i) => i.id === id);
  }

  /** Committed children of `id` (`null`: roots), in log order. */
  children(id: string | null): Item[] {
    return childrenOf(this.state, id);
  }

  /** Checkpoints, latest per label, in the order they were set. */
  checkpoints(): Checkpoint[] {
    return [...this.state.checkpoints.values()].sort((a, b) =>
      a.time < b.time ? -1 : a.time > b.time ? 1 : 0,
    );
  }

  /**
   * Adds an item to the current turn, after the tip. Returns the stored item (id, parent, turn and time
   * filled in). Nothing is written until `commit()`.
   */
  append(item: NewItem): Item {
    return this.appendAt(this.tip, item);
  }

  /**
   * Edit-and-rerun: adds `replacement` as a sibling of `itemId` (same parent) in the current turn, so the
   * edited prompt starts a new branch and the old answer stays in the tree.
   */
  edit(itemId: string, replacement: NewItem): Item {
    // The node's parent, not the item: no body is read back for an edit.
    const node = this.state.nodes.get(itemId);
    const parent = node ? node.parent : this.pending.find((i) => i.id === itemId)?.parent;
    if (parent === undefined) throw new RangeError(`edit: no item ${itemId} in ${this.where()}`);
    if (this.pending.length > 0)
      throw new PendingTurnError(
        `edit: commit or discard the pending turn first (${this.pending.length} items)`,
      );
    return this.appendAt(parent, replacement);
  }

  private appendAt(parent: string | null, fields: NewItem): Item {
    this.assertOpen();
    this.assertIdle();
    const item = asStored(
      validateItem({
        ...fields,
        id: this.newId(),
        parent,
        turn: this.state.turn + 1,
        time: this.now().toISOString(),
      }),
    );
    if (this.state.nodes.has(item.id) || this.pending.some((p) => p.id === item.id))
      throw new Error(`append: id generator returned ${item.id}, which is already in ${this.where()}`);
    this.pending.push(item);
    this.pendingTip = item.id;
    return item;
  }

  /** Writes the pending turn and its commit mark as one durable unit. Returns the committed items. */
  commit(): StoreReturn<A, Item[]> {
    return this.run(() => {
      this.assertOpen();
      if (this.pending.length === 0) return [];
      const items = this.pending;
      const turn = this.state.turn + 1;
      return then(this.writeUnit([...items.map((item): LogEntry => ({ t: 'item', item }))], turn), () => {
        this.pending = [];
        this.pendingTip = null;
        return items;
      });
    });
  }

  /**
   * Writes items built elsewhere (an importer's tree) as they are, ids and turns included, in one durable
   * unit. Each item's parent must be `null`, an existing item or an earlier one of `items`; ids must be
   * new; turns must come after the last committed turn and never decrease. `tip` (default: the last
   * item) and `checkpoints` (positions among the items, files already in the blob store) are written in
   * the same unit.
   */
  adopt(
    items: readonly Item[],
    extra: { tip?: string | null; checkpoints?: readonly Checkpoint[] } = {},
  ): StoreReturn<A, void> {
    return this.run(() => this.adoptUnit(items, extra));
  }

  private adoptUnit(
    items: readonly Item[],
    extra: { tip?: string | null; checkpoints?: readonly Checkpoint[] },
  ): Awaitable<void> {
    this.assertBoundary('adopt');
    if (items.length === 0 && (extra.checkpoints ?? []).length === 0 && extra.tip === undefined) return;
    const seen = new Set<string>();
    let turn = this.state.turn + 1;
    const entries: LogEntry[] = [];
    for (const raw of items) {
      const item = asStored(validateItem(raw));
      if (this.state.nodes.has(item.id) || seen.has(item.id))
        throw new RangeError(`adopt: item id ${item.id} is already in ${this.where()}`);
      if (item.parent !== null && !seen.has(item.parent) && !this.state.nodes.has(item.parent))
        throw new RangeError(
          `adopt: item ${item.id} names parent ${item.parent}, which is neither in ${this.where()} nor earlier in the input`,
        );
      if (item.turn < turn)
        throw new RangeError(
          `adopt: item ${item.id} has turn ${item.turn}, expected ${turn} or later (turns only grow; ${this.where()} is at turn ${this.state.turn})`,
        );
      turn = item.turn;
      seen.add(item.id);
      entries.push({ t: 'item', item });
    }
    const known = (id: string | null): boolean => id === null || seen.has(id) || this.state.nodes.has(id);
    for (const cp of extra.checkpoints ?? []) {
      if (!known(cp.at))
        throw new RangeError(
          `adopt: checkpoint '${cp.label}' names item ${cp.at}, which is not in ${this.where()}`,
        );
      entries.push({ t: 'checkpoint', checkpoint: { ...cp } });
    }
    const end = items.length > 0 ? items[items.length - 1]!.id : this.state.tip;
    if (extra.tip !== undefined && extra.tip !== end) {
      if (!known(extra.tip))
        throw new RangeError(`adopt: tip ${extra.tip} is not in ${this.where()} nor in the input`);
      entries.push({ t: 'tip', tip: extra.tip });
    }
    if (entries.length === 0) return;
    return this.writeUnit(entries, items.length > 0 ? turn : this.state.turn);
  }

  /** Drops the pending (uncommitted) turn. Committed items are never affected. */
  discard(): Item[] {
    this.assertIdle();
    const dropped = this.pending;
    this.pending = [];
    this.pendingTip = null;
    return dropped;
  }

  /** Moves the tip to `itemId` (`null`: an empty path). Writes no items; the move itself is durable. */
  branch(itemId: string | null): StoreReturn<A, void> {
    return this.run(() => {
      this.assertBoundary('branch');
      if (itemId !== null && !this.state.nodes.has(itemId))
        throw new RangeError(`branch: no item ${itemId} in ${this.where()}`);
      if (itemId === this.state.tip) return;
      return this.writeUnit([{ t: 'tip', tip: itemId }], this.state.turn);
    });
  }

  /**
   * Copies the path root → tip (or root → `at`, any item: forking from another branch moves no tip)
   * into a new conversation with fresh item ids and a lineage link. Later
   * items in either history never show in the other. Checkpoints on the path are copied too.
   * Returns the new history, open for writing.
   */
  fork(options: { conversation?: string; at?: string | null } = {}): StoreReturn<A, AgentHistory<A>> {
    return this.run(() => this.forkUnit(options));
  }

  private forkUnit(options: { conversation?: string; at?: string | null }): Awaitable<AgentHistory<A>> {
    this.assertBoundary('fork');
    const at = options.at === undefined ? this.state.tip : options.at;
    if (at !== null && !this.state.nodes.has(at))
      throw new RangeError(`fork: no item ${at} in ${this.where()}`);
    const path = pathTo(this.state, at);
    const conversation = options.conversation ?? this.backend.newConversationId();
    const lineage = { conversation: this.conversation, agent: this.agent, tip: at };
    const ids = new Map<string, string>();
    const entries: LogEntry[] = [];
    for (const item of path) {
      const id = this.newId();
      ids.set(item.id, id);
      const copy = { ...item, id, parent: item.parent === null ? null : ids.get(item.parent)! } as Item;
      if (copy.kind === 'summary' && copy.covers) copy.covers = remapRange(copy.covers, ids);
      if (copy.kind === 'compaction') {
        copy.range = remapRange(copy.range, ids);
        copy.params = remapIds(copy.params, ids) as Record<string, unknown>;
      }
      if (copy.kind === 'digest' && copy.abandonedTip)
        copy.abandonedTip = ids.get(copy.abandonedTip) ?? copy.abandonedTip;
      entries.push({ t: 'item', item: copy });
    }
    for (const cp of this.checkpoints()) {
      if (cp.at === null || ids.has(cp.at))
        entries.push({ t: 'checkpoint', checkpoint: { ...cp, at: cp.at === null ? null : ids.get(cp.at)! } });
    }
    const turn = path.length > 0 ? path[path.length - 1]!.turn : 0;
    entries.push({ t: 'commit', turn, time: this.now().toISOString() });
    return then(this.backend.createFork(conversation, lineage, this.system), (target) =>
      attempt(
        () =>
          then(
            target.write(entries),
            () => new AgentHistory<A>(target as HistoryBackend<A>, { newId: this.newId, now: this.now }),
          ),
        (err) =>
          then(target.close(), () => {
            throw err;
          }),
      ),
    );
  }

  /**
   * Labels the current position (a turn boundary) and snapshots `files` (content-addressed). A label set
   * again moves to the new position; the older one stays in the log.
   */
  checkpoint(
    label: string,
    options: { files?: readonly string[]; cwd?: string } = {},
  ): StoreReturn<A, Checkpoint> {
    return this.run(() => {
      this.assertBoundary('checkpoint');
      if (typeof label !== 'string' || label.length === 0 || label.length > 200)
        throw new RangeError(`checkpoint: label expected 1-200 characters, found ${JSON.stringify(label)}`);
      const at = this.state.tip;
      const turn = this.state.turn;
      const time = this.now().toISOString();
      const blobs = this.backend.blobs as BlobStore<boolean>;
      return then(snapshotFiles(options.files ?? [], options.cwd ?? process.cwd(), blobs), (files) => {
        const checkpoint: Checkpoint = { label, at, turn, time, files };
        return then(this.writeUnit([{ t: 'checkpoint', checkpoint }], turn), () => checkpoint);
      });
    });
  }

  /**
   * Moves the tip to checkpoint `label` and appends a digest of the abandoned stretch after it: the
   * caller's text, or an extractive one (tool calls made, files touched, last model text). `digest:
   * false` skips it. Tip move and digest are one durable unit.
   */
  rewind(label: string, options: { digest?: string | false } = {}): StoreReturn<A, RewindResult> {
    return this.run(() => this.rewindUnit(label, options));
  }

  private rewindUnit(label: string, options: { digest?: string | false }): Awaitable<RewindResult> {
    this.assertBoundary('rewind');
    const checkpoint = this.requireCheckpoint(label, 'rewind');
    const abandoned = this.abandonedSince(checkpoint);
    const entries: LogEntry[] = [{ t: 'tip', tip: checkpoint.at }];
    let digest: Item | undefined;
    if (options.digest !== false && (abandoned.length > 0 || typeof options.digest === 'string')) {
      digest = validateItem({
        kind: 'digest',
        author: 'machinery',
        text: options.digest ?? extractiveDigest(label, abandoned),
        checkpoint: label,
        ...(this.state.tip !== null ? { abandonedTip: this.state.tip } : {}),
        id: this.newId(),
        parent: checkpoint.at,
        turn: this.state.turn + 1,
        time: this.now().toISOString(),
      });
      entries.push({ t: 'item', item: digest });
    }
    return then(this.writeUnit(entries, digest ? this.state.turn + 1 : this.state.turn), () => ({
      tip: this.state.tip,
      checkpoint,
      abandoned,
      ...(digest ? { digest } : {}),
    }));
  }

  /**
   * Goes back to checkpoint `label`: `code` puts snapshotted files back, `conversation` rewinds (with a
   * digest, see `rewind`), both may be asked at once. Reports the side effects no checkpoint can undo.
   */
  restore(
    label: string,
    options: { code?: boolean; conversation?: boolean; digest?: string | false; cwd?: string },
  ): StoreReturn<A, RestoreResult> {
    return this.run(() => this.restoreUnit(label, options));
  }

  private restoreUnit(
    label: string,
    options: { code?: boolean; conversation?: boolean; digest?: string | false; cwd?: string },
  ): Awaitable<RestoreResult> {
    this.assertBoundary('restore');
    const checkpoint = this.requireCheckpoint(label, 'restore');
    if (!options.code && !options.conversation)
      throw new TypeError('restore: ask for code, conversation or both');
    const abandoned = this.abandonedSince(checkpoint);
    const resultOf = new Map<string, Item>();
    for (const i of abandoned) if (i.kind === 'tool_result') resultOf.set(i.callId, i);
    const irreversible = abandoned.filter((i): i is ToolCallItem => {
      if (i.kind !== 'tool_call') return false;
      const r = resultOf.get(i.callId);
      return !(r && r.kind === 'tool_result' && r.files && r.files.length > 0);
    });
    const result: RestoreResult = { checkpoint, irreversible };
    const code = (): Awaitable<void> => {
      if (!options.code) return;
      const touched = new Set<string>();
      for (const i of abandoned) if (i.kind === 'tool_result') for (const f of i.files ?? []) touched.add(f);
      const covered = new Set(Object.keys(checkpoint.files));
      const cwd = options.cwd ?? process.cwd();
      const notCovered = [...touched].filter((f) => !covered.has(resolve(cwd, f)));
      return then(restoreFiles(checkpoint.files, this.backend.blobs as BlobStore<boolean>), (files) => {
        result.files = { ...files, notCovered };
      });
    };
    return then(code(), () => {
      if (!options.conversation) return result;
      return then(
        this.rewindUnit(label, options.digest === undefined ? {} : { digest: options.digest }),
        (rewound) => {
          result.conversation = rewound;
          return result;
        },
      );
    });
  }

  /** The newest part of the path within a budget, cut so no tool call is separated from its result. */
  resume(options: ResumeOptions): ResumeResult {
    return resumeCut(this.path(), this.checkpoints(), options);
  }

  /** Releases the writer lock. The object can still be read; writes throw. */
  close(): StoreReturn<A, void> {
    return this.run(() => {
      if (this.closed) return;
      this.closed = true;
      return this.backend.close();
    });
  }

  /**
   * Runs one public call: its value on a synchronous backend; on an asynchronous one a promise (a throw
   * becomes a rejection), with further calls refused until it settles, since the tree changes only
   * once a write is durable.
   */
  private run<T>(f: () => Awaitable<T>): StoreReturn<A, T> {
    if (!this.isAsync) {
      const value = f();
      if (isPromise(value))
        throw new Error(`internal: ${this.where()}: a synchronous backend returned a promise`);
      return value as StoreReturn<A, T>;
    }
    let value: Awaitable<T>;
    try {
      this.assertIdle();
      value = f();
    } catch (err) {
      return Promise.reject(err as Error) as StoreReturn<A, T>;
    }
    if (!isPromise(value)) return Promise.resolve(value) as StoreReturn<A, T>;
    this.busy = true;
    return value.finally(() => {
      this.busy = false;
    }) as StoreReturn<A, T>;
  }

  private abandonedSince(checkpoint: Checkpoint): Item[] {
    const keep = new Set(nodePath(this.state, checkpoint.at).map((n) => n.id));
    return bodiesOf(
      this.state,
      nodePath(this.state, this.state.tip).filter((n) => !keep.has(n.id)),
    );
  }

  private requireCheckpoint(label: string, op: string): Checkpoint {
    const cp = this.state.checkpoints.get(label);
    if (!cp) {
      const known = [...this.state.checkpoints.keys()];
      throw new RangeError(
        `${op}: no checkpoint '${label}' in ${this.where()} (known: ${known.length > 0 ? known.join(', ') : 'none'})`,
      );
    }
    return cp;
  }

  private writeUnit(entries: LogEntry[], turn: number): Awaitable<void> {
    this.assertOpen();
    const unit: LogEntry[] = [...entries, { t: 'commit', turn, time: this.now().toISOString() }];
    // Only after the write is durable does the in-memory tree change.
    return then(this.backend.write(unit), (at) => {
      const problems: LogProblem[] = [];
      unit.forEach((entry, i) => applyEntry(this.state, entry, 0, problems, at ? at[i] : undefined));
      if (problems.length > 0)
        throw new Error(`internal: a written unit did not apply cleanly: ${problems[0]!.message}`);
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`${this.where()} is closed`);
  }

  private assertIdle(): void {
    if (this.busy)
      throw new Error(`${this.where()}: a write is still in progress; await it before the next call`);
  }

  private assertBoundary(op: string): void {
    this.assertOpen();
    if (this.pending.length > 0)
      throw new PendingTurnError(
        `${op}: only at a turn boundary; commit or discard the pending turn first (${this.pending.length} items)`,
      );
  }

  private where(): string {
    return `conversation ${this.conversation} agent ${this.agent}`;
  }
}

function remapRange(r: { from: string; to: string }, ids: Map<string, string>): { from: string; to: string } {
  return { from: ids.get(r.from) ?? r.from, to: ids.get(r.to) ?? r.to };
}

/**
 * A compaction's parameters name items (elided ids, imaged runs); in a fork they must name the copies,
 * or replaying the compaction there would miss. Every string equal to a copied id is mapped; the tree
 * stays ignorant of what each parameter means.
 */
function remapIds(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => remapIds(v, ids));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, remapIds(v, ids)]));
  return value;
}

/**
 * The item exactly as a reload will see it (keys in canonical order, as the log stores them), so a
 * request built before a restart and after it is byte-identical and hits the same prompt cache.
 */
function asStored(item: Item): Item {
  return JSON.parse(canonicalJson(item)) as Item;
}
