/**
 * Shared machinery for importers: turns the items a format yields, in order, into a linear path with
 * deterministic ids, a parent chain, turn numbers and times, and reports unpaired tool calls/results.
 * Each format file only says what its entries mean; everything about ids, turns and pairing is here.
 */
import { imageSizeBase64 } from '../image-size.js';
import type { ContentPart, ImageData, Item, NewItem } from '../items.js';

/** The formats `importTranscript` understands. */
export type ImportFormat =
  | 'claude-code'
  | 'codex'
  | 'openai-chat'
  | 'anthropic'
  | 'vercel-ai'
  | 'langchain'
  | 'swe-agent'
  | 'glyphfold';

export interface ImportOptions {
  /** Skip detection and parse as this format. */
  format?: ImportFormat;
  /** Ids are `<idPrefix>-000001`, `<idPrefix>-000002`, … (default `imp`). */
  idPrefix?: string;
  /** Time given to items whose source has none; later ones get +1 ms each (default the Unix epoch). */
  startTime?: string;
}

export interface ImportResult {
  format: ImportFormat;
  /** The active path root → tip (a linear path). */
  items: Item[];
  /**
   * Every item in log order: the path and, for sources that keep a tree (Claude Code: edited prompts,
   * rewinds), the branches off it. Parents come before children. Equal to `items` for linear sources.
   */
  tree: Item[];
  /** The item the path ends at (the newest entry the source would resume from). */
  tip: string | null;
  /** Other agents' histories found in the same source (Claude Code subagent runs), in source order. */
  agents: ImportedAgent[];
  /** Positions the source itself marked (Claude Code file-history snapshots, one per prompt). */
  checkpoints: ImportedCheckpoint[];
  /** What was kept as is but looks wrong (orphans, broken chains, skipped entries), one sentence each. */
  warnings: string[];
  /** The system prompt(s) found, joined by blank lines. Not an item: it is per-request instruction. */
  system?: string;
}

/** The history of another agent in the same source: a subagent's run. */
export interface ImportedAgent {
  /** Agent name for the workspace (`agent-<id>` from Claude Code's `agentId` / `agent-<id>.jsonl`). */
  name: string;
  /** The `callId` of the main history's tool call that started it, when the source says so. */
  calledBy?: string;
  /** The agent's own import: its path, tree and warnings. */
  result: ImportResult;
}

/** A position the source marked, with the file backups it names (contents live outside the log). */
export interface ImportedCheckpoint {
  label: string;
  /** Item id the position follows (`null`: before the first item). */
  at: string | null;
  time: string;
  /**
   * Path → the source's backup of that file at this position: `backup` names the backup file
   * (Claude Code `~/.claude/file-history/<session>/<backupFileName>`), `null` when the file did not exist.
   */
  files: Record<string, { backup: string | null }>;
}

/** Where a pending item came from, for turn grouping and messages. */
interface Pending {
  item: NewItem;
  time: string | undefined;
  /** Items from one source message share a group: only the first person message of a group opens a turn. */
  group: number;
  /** Index of the parent in `pending` (`null`: a root). */
  parent: number | null;
}

/** Collects items in order; `finish()` assigns ids, parents, turns and times. */
export class PathBuilder {
  /** `format` names the importer in errors about the content it reads. */
  constructor(readonly format: string = 'import') {}
  private readonly pending: Pending[] = [];
  private group = 0;
  readonly warnings: string[] = [];
  private readonly systems: string[] = [];
  /** Parent of the next pushed item when set by `attach`; otherwise the previous item. */
  private nextParent: number | null | undefined;
  private tipIndex: number | undefined;
  private readonly parents = new Set<number>();

  /** Starts a new source message (a line, an array element). */
  nextGroup(): void {
    this.group++;
  }

  /** How many items were pushed; the next one gets this index. */
  get size(): number {
    return this.pending.length;
  }

  /**
   * Makes the next pushed item a child of item `parent` (an index from `size`, `null`: a root) instead
   * of the previous one; the items after it chain as usual. This is how a tree is built.
   */
  attach(parent: number | null): void {
    if (parent !== null && !(parent >= 0 && parent < this.pending.length))
      throw new RangeError(`internal: attach to item ${parent} of ${this.pending.length}`);
    this.nextParent = parent;
  }

  /** The path ends at item `index` (default: the last one pushed). */
  setTip(index: number): void {
    this.tipIndex = index;
  }

  push(item: NewItem, time?: string): void {
    const parent = this.nextParent !== undefined ? this.nextParent : this.pending.length - 1;
    this.nextParent = undefined;
    const p = parent === null || parent < 0 ? null : parent;
    if (p !== null) this.parents.add(p);
    this.pending.push({ item, time, group: this.group, parent: p });
  }

  /** True when some pushed item continues from item `index`. */
  hasChildren(index: number): boolean {
    return this.parents.has(index);
  }

  /** The newest pushed item in the subtree of item `index` (itself when it has no children). */
  newestBelow(index: number): number {
    for (let i = this.pending.length - 1; i > index; i--) {
      // Parents always come first, so the walk up can stop once it passes `index`.
      let up: number | null = i;
      while (up !== null && up > index) up = this.pending[up]!.parent;
      if (up === index) return i;
    }
    return index;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  system(text: string): void {
    if (text.trim() !== '') this.systems.push(text);
  }

  finish(format: ImportFormat, options: ImportOptions = {}): ImportResult {
    const prefix = options.idPrefix ?? 'imp';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(prefix)) {
      throw new Error(`import: idPrefix must match [A-Za-z0-9_.-]{1,64}, found ${JSON.stringify(prefix)}`);
    }
    const start = Date.parse(options.startTime ?? '1970-01-01T00:00:00.000Z');
    if (Number.isNaN(start))
      throw new Error(`import: startTime must be an ISO-8601 time, found ${options.startTime}`);

    const turns = assignTurns(this.pending);
    const tree: Item[] = [];
    const idOf = (i: number): string => `${prefix}-${String(i + 1).padStart(6, '0')}`;
    let lastTime = start;
    this.pending.forEach((p, i) => {
      const parsed = p.time === undefined ? NaN : Date.parse(p.time);
      // Source times are kept; missing or unparsable ones continue from the previous item so times never go backwards.
      const t = Number.isNaN(parsed) ? lastTime + (i === 0 ? 0 : 1) : parsed;
      lastTime = t;
      const parent = p.parent === null ? null : idOf(p.parent);
      tree.push({
        ...p.item,
        id: idOf(i),
        parent,
        turn: turns[i] ?? 1,
        time: new Date(t).toISOString(),
      } as Item);
    });
    const tipIndex = this.tipIndex ?? tree.length - 1;
    const items: Item[] = [];
    for (let i: number | null = tipIndex; i !== null && i >= 0; i = this.pending[i]!.parent)
      items.push(tree[i]!);
    items.reverse();
    this.warnings.push(...pairingWarnings(items));
    const result: ImportResult = {
      format,
      items,
      tree,
      tip: tree.length > 0 ? idOf(tipIndex) : null,
      agents: [],
      checkpoints: [],
      warnings: this.warnings,
    };
    if (this.systems.length > 0) result.system = this.systems.join('\n\n');
    return result;
  }
}

/**
 * A turn starts at each person message (the first of its source message), and takes with it the
 * person images and surface context directly before it: the client attaches those to the prompt.
 * Turns count in log order over the whole tree, as a history numbers the turns it commits.
 */
function assignTurns(pending: readonly Pending[]): number[] {
  const starts = new Set<number>();
  let lastGroupWithPerson = -1;
  pending.forEach((p, i) => {
    if (p.item.kind !== 'message' || p.item.author !== 'person') return;
    if (p.group === lastGroupWithPerson) return;
    lastGroupWithPerson = p.group;
    let s = i;
    // Only items this one continues from directly (not the end of another branch) are its prelude.
    while (s > 0 && pending[s]!.parent === s - 1) {
      const prev = pending[s - 1]!.item;
      const prelude = (prev.author === 'surface' || prev.author === 'person') && prev.kind !== 'message';
      if (!prelude) break;
      s--;
    }
    starts.add(s);
  });
  const turns: number[] = [];
  let turn = 0;
  pending.forEach((_, i) => {
    if (starts.has(i)) turn++;
    turns.push(Math.max(turn, 1));
  });
  return turns;
}

/** One warning per tool result without an earlier call and per call without a later result. */
export function pairingWarnings(items: readonly Item[]): string[] {
  const warnings: string[] = [];
  const calls = new Map<string, Item>();
  const answered = new Set<string>();
  for (const item of items) {
    if (item.kind === 'tool_call') {
      if (calls.has(item.callId)) warnings.push(`tool call ${item.id}: callId ${item.callId} is used twice`);
      calls.set(item.callId, item);
    } else if (item.kind === 'tool_result') {
      if (!calls.has(item.callId)) {
        warnings.push(`tool result ${item.id}: no earlier call with callId ${item.callId} (orphan kept)`);
      }
      answered.add(item.callId);
    }
  }
  for (const [callId, call] of calls) {
    if (!answered.has(callId))
      warnings.push(`tool call ${call.id} (${itemName(call)}): no result for callId ${callId} (orphan kept)`);
  }
  return warnings;
}

const itemName = (item: Item): string => (item.kind === 'tool_call' ? item.name : item.kind);

/** Remembers call names by callId so results can carry the tool name views need. */
export class CallNames {
  private readonly names = new Map<string, string>();
  set(callId: string, name: string): void {
    this.names.set(callId, name);
  }
  /** The call's name, or '' for an orphan result (reported by `pairingWarnings`). */
  get(callId: string): string {
    return this.names.get(callId) ?? '';
  }
}

const MEDIA_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * Image data from base64 with size and media type read from its header. The header wins over the
 * declared type (providers reject a mismatch); a mismatch or an unreadable header is warned about.
 */
export function imageFromBase64(
  data: string,
  declared: string | undefined,
  where: string,
  b: PathBuilder,
): ImageData {
  let info;
  try {
    info = imageSizeBase64(data);
  } catch (error) {
    b.warn(`${where}: image data is not valid base64 (${(error as Error).message})`);
  }
  if (info) {
    if (declared !== undefined && declared !== info.mediaType) {
      b.warn(
        `${where}: image declared as ${declared} but its header says ${info.mediaType}; using ${info.mediaType}`,
      );
    }
    return { mediaType: info.mediaType, data, width: info.width, height: info.height };
  }
  b.warn(`${where}: could not read the image header; size unknown`);
  const mediaType = (MEDIA_TYPES.includes(declared ?? '') ? declared : 'image/png') as ImageData['mediaType'];
  return { mediaType, data };
}

/** Splits a `data:<type>;base64,<data>` URL; `undefined` for anything else (remote URLs). */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1]!, data: m[2]! } : undefined;
}

/** Text parts of a content list joined, for places that need a plain string. */
export function joinText(parts: readonly ContentPart[]): string {
  return parts
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

/**
 * The error for a content part an importer does not know: never dropped, never guessed at. Names the
 * format, where the part is, its type and the types that format knows.
 */
export function unknownPartError(
  format: string,
  where: string,
  part: unknown,
  expected: readonly string[],
): Error {
  const type = isRecord(part) ? JSON.stringify(part.type) : typeName(part);
  return new Error(
    `${format}: ${where}: unknown content part type ${type}; expected one of ${expected.join(', ')}`,
  );
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Human description of a JSON value's type for "expected X, found Y" messages. */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Splits JSONL into parsed lines with 1-based line numbers; blank lines are skipped. A line that is
 * not JSON (typically the last one, cut short by a crash) is reported in `warnings` and skipped, so
 * the rest still loads; when no line parses at all, this throws with the first bad line's number.
 */
export function parseLines(text: string, format: string, b: PathBuilder): { line: number; value: unknown }[] {
  const out: { line: number; value: unknown }[] = [];
  const bad: string[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    try {
      out.push({ line: i + 1, value: JSON.parse(line) });
    } catch (error) {
      bad.push(
        `line ${i + 1} is not valid JSON (${(error as Error).message}): ${JSON.stringify(line.slice(0, 60))}`,
      );
    }
  });
  if (out.length === 0) {
    throw new Error(`${format}: ${bad[0] ?? 'the input holds no JSON lines'}`);
  }
  for (const message of bad) b.warn(`${message}; skipped`);
  return out;
}

/** Parses tool arguments given as a JSON string; keeps the raw string (and warns) when it is not JSON. */
export function parseArguments(raw: unknown, where: string, b: PathBuilder): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    b.warn(`${where}: tool arguments are not valid JSON; kept as a string`);
    return raw;
  }
}
