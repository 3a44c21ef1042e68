/**
 * The plain-text transcript format of a stretch of items: what a snapshot page shows and what the
 * summarizer reads. Deterministic (same items, same string: page bytes and prompt caches depend on
 * it) and plain ASCII in its own markup, so every header is drawable by the 4×6 font.
 *
 *   --- person (turn 3) ---
 *   Please fix the failing test.
 *   --- model call write_file [toolu_1] ---
 *   content:
 *     export const a = 1;
 *     export const b = 2;
 *   path: src/a.ts
 *   --- result write_file [toolu_1] ---
 *   ...
 *
 * A tool call's input is laid out for a reader (`toolInputText`), not as JSON: a written file must
 * look like the file, not like one long line of `\n` escapes.
 */
import { canonicalJson } from '../transcript/canonical.js';
import type { Item } from '../transcript/items.js';
import { readableToolOutput } from '../transcript/readable.js';

/** Compact JSON up to this many characters stays on its key's line; longer values are laid out. */
export const SHORT_JSON = 72;

/**
 * A tool call's input as reader-friendly fields, one `key: value` line per field, keys sorted (a
 * record reloaded from disk may hold the same input with its keys in another order, and the page
 * must not change with it: the bytes feed a prompt cache).
 *
 * - A string with a line break becomes a block: `key:` and then its lines verbatim, each indented by
 *   two spaces. Indentation rather than a fence: no content can close an indent (a markdown file full
 *   of ``` cannot break out of it), the file keeps its own indentation one step in, a block costs no
 *   extra row on a page (a fence costs two per value, and an Edit call has two values), and a line at
 *   column 0 is always the next key or the next item's `--- … ---` header.
 * - A one-line string is written as it is, or as JSON when that is needed to see it (empty, blank,
 *   leading or trailing spaces, control characters); numbers, booleans and null as JSON.
 * - Objects and arrays as compact canonical JSON when short and free of multi-line strings, else as
 *   indented fields (`- ` marks an array element).
 *
 * Never throws: values JSON cannot hold (NaN, bigint, functions, cycles) are written as best they can.
 */
export function toolInputText(input: unknown): string {
  if (isPlainObject(input)) {
    const lines = objectLines(input, '', new Set());
    return lines.length ? lines.join('\n') : '{}';
  }
  if (Array.isArray(input)) return arrayLines(input, '', new Set()).join('\n') || '[]';
  if (typeof input === 'string' && isBlock(input)) return blockLines(input, '  ').join('\n');
  return scalar(input);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const LINE_BREAK = /\r\n|\r|\n/;

/** A string drawn as a block: it has a line break and something visible besides. */
function isBlock(s: string): boolean {
  return LINE_BREAK.test(s) && /\S/.test(s);
}

/** The lines of a block string, each after `indent` (empty lines stay empty: trailing spaces are not drawn). */
function blockLines(s: string, indent: string): string[] {
  return s.split(LINE_BREAK).map((l) => (l.length ? indent + l : ''));
}

/** True when a bare one-line value would hide something: edge spaces, control characters (tab is fine). */
function needsQuotes(s: string): boolean {
  if (/^\s|\s$/.test(s)) return true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return true;
  }
  return false;
}

/** A value that fits on one line: bare strings where that reads unambiguously, JSON otherwise. */
function scalar(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v.length === 0 || needsQuotes(v) || LINE_BREAK.test(v) ? JSON.stringify(v) : v;
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : String(v);
    case 'boolean':
      return String(v);
    case 'bigint':
      return `${v}n`;
    case 'undefined':
      return 'null';
    case 'function':
    case 'symbol':
      return `(${typeof v})`;
    default:
      return v === null ? 'null' : (compactJson(v) ?? '(unreadable value)');
  }
}

/** Canonical JSON of `v`, or undefined when it has no JSON form (cycles, NaN, bigint, functions). */
function compactJson(v: unknown): string | undefined {
  try {
    return canonicalJson(v);
  } catch {
    return undefined;
  }
}

/**
 * True when `v` cannot go on one line as compact JSON: a string inside it is drawn as a block, or it
 * holds itself (`path` is the chain of objects from the top; JSON of a cycle never ends).
 */
function needsLayout(v: unknown, path: Set<object>): boolean {
  if (typeof v === 'string') return isBlock(v);
  if (typeof v !== 'object' || v === null) return false;
  if (path.has(v)) return true;
  path.add(v);
  try {
    return Object.values(v).some((x) => needsLayout(x, path));
  } finally {
    path.delete(v);
  }
}

/** A key as written before its colon: bare unless that would be ambiguous. */
function keyText(k: string): string {
  return /^[^\s"':#-][^\s":]*$/.test(k) ? k : JSON.stringify(k);
}

function objectLines(o: Record<string, unknown>, indent: string, seen: Set<object>): string[] {
  seen.add(o);
  const out: string[] = [];
  for (const k of Object.keys(o).sort()) {
    const v = o[k];
    if (v === undefined) continue;
    out.push(...valueLines(`${indent}${keyText(k)}:`, v, indent, seen));
  }
  seen.delete(o);
  return out;
}

function arrayLines(a: readonly unknown[], indent: string, seen: Set<object>): string[] {
  seen.add(a);
  const out: string[] = [];
  for (const v of a) {
    // An element is laid out four columns in, then its first line's indent becomes `  - `.
    const inner = indent + '    ';
    const lines = valueLines(undefined, v ?? null, inner, seen);
    const first = lines[0] ?? '';
    lines[0] = indent + '  -' + (first.startsWith(inner) ? ' ' + first.slice(inner.length) : '');
    out.push(...lines);
  }
  seen.delete(a);
  return out;
}

/**
 * The lines of one value: after `head` (`key:`) on its line when it fits there, else below it, its
 * content indented two columns past `indent`. Without a head (array elements) the content starts at
 * `indent` itself.
 */
function valueLines(head: string | undefined, v: unknown, indent: string, seen: Set<object>): string[] {
  const one = (text: string) => [head === undefined ? indent + text : `${head} ${text}`];
  const below = head === undefined ? indent : indent + '  ';
  if (typeof v === 'string') {
    if (!isBlock(v)) return one(scalar(v));
    const lines = blockLines(v, below);
    return head === undefined ? lines : [head, ...lines];
  }
  if (typeof v !== 'object' || v === null) return one(scalar(v));
  if (seen.has(v)) return one('(circular)');
  const json = needsLayout(v, new Set()) ? undefined : compactJson(v);
  if (json !== undefined && json.length <= SHORT_JSON) return one(json);
  const body = Array.isArray(v)
    ? arrayLines(v, head === undefined ? indent.slice(0, -2) || '' : indent, seen)
    : objectLines(v as Record<string, unknown>, below, seen);
  if (body.length === 0) return one(Array.isArray(v) ? '[]' : '{}');
  return head === undefined ? body : [head, ...body];
}

/** The header line of one item. */
export function itemHeader(item: Item): string {
  const turn = `turn ${item.turn}`;
  switch (item.kind) {
    case 'message':
      return `--- ${item.author} (${turn}) ---`;
    case 'context':
      return `--- context${item.source ? ' ' + item.source : ''} (${turn}) ---`;
    case 'reasoning':
      return `--- model thinking (${turn}) ---`;
    case 'tool_call':
      return `--- model call ${item.name} [${item.callId}] ---`;
    case 'tool_result':
      return `--- ${item.isError ? 'error from' : 'result'} ${item.name} [${item.callId}] ---`;
    case 'image':
      return `--- image from ${item.author} (${turn}) ---`;
    case 'summary':
      return `--- summary (${turn}) ---`;
    case 'digest':
      return `--- rewind digest${item.checkpoint ? ' to ' + item.checkpoint : ''} (${turn}) ---`;
    case 'compaction':
      return `--- compaction ${item.rung} ---`;
  }
}

/**
 * How a tool call's input is written: `fields` (`toolInputText`, the default) or `json` (one line of
 * canonical JSON, the format before fields; kept so that compaction records written then replay the
 * same page bytes).
 */
export type ToolInputFormat = 'fields' | 'json';

/**
 * How tool-result text is written: `readable` (the default: known wrappers such as Codex's
 * `{"output","metadata"}` JSON unwrapped, `readableToolOutput`) or `verbatim` (the bytes the model got;
 * snapshot records from before the unwrapping replay with it).
 */
export type ToolOutputFormat = 'readable' | 'verbatim';

/** Options of the transcript text. */
export interface TextOptions {
  toolInput?: ToolInputFormat;
  toolOutput?: ToolOutputFormat;
}

/** The tool input as canonical JSON (the `json` format); a value JSON cannot hold as JSON.stringify does. */
function inputJson(value: unknown): string {
  try {
    return canonicalJson(value ?? null);
  } catch {
    return JSON.stringify(value) ?? 'null';
  }
}

/** The body of one item, as the reader needs it. */
export function itemBody(item: Item, options: TextOptions = {}): string {
  switch (item.kind) {
    case 'message':
    case 'context':
    case 'summary':
    case 'digest':
      return item.text;
    case 'reasoning':
      return item.text || '(reasoning not shown)';
    case 'tool_call':
      return options.toolInput === 'json' ? inputJson(item.input) : toolInputText(item.input);
    case 'tool_result': {
      const parts: string[] = [];
      const readable = options.toolOutput !== 'verbatim';
      for (const p of item.content) {
        if (p.type === 'text') parts.push(readable ? readableToolOutput(p.text) : p.text);
        else parts.push(`[image ${p.mediaType}${p.width && p.height ? ` ${p.width}x${p.height}` : ''}]`);
      }
      if (item.files?.length) parts.push(`files: ${item.files.join(', ')}`);
      return parts.join('\n');
    }
    case 'image':
      return `[image ${item.mediaType}${item.width && item.height ? ` ${item.width}x${item.height}` : ''}]${item.text ? ' ' + item.text : ''}`;
    case 'compaction':
      return item.summary ?? `range ${item.range.from}..${item.range.to}`;
  }
}

/** One item as transcript text (header, newline, body). */
export function formatItem(item: Item, options: TextOptions = {}): string {
  return `${itemHeader(item)}\n${itemBody(item, options)}`;
}

/** A stretch of items as one transcript text. Compaction items are bookkeeping and are skipped. */
export function formatItems(items: readonly Item[], options: TextOptions = {}): string {
  const parts: string[] = [];
  for (const it of items) if (it.kind !== 'compaction') parts.push(formatItem(it, options));
  return parts.join('\n');
}
