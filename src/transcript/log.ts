/**
 * The agent-history log format: versioned JSONL with a header entry, a hash chain and commit marks.
 *
 * Line 1 is a header `{"t":"header","v":1,...}`. Every later line is one entry in canonical JSON with a
 * `prev` field holding the sha256 (hex) of the previous line's bytes, so an altered, removed or inserted
 * line breaks the chain at a known line number. Entries are written in units (a turn, a tip move, a
 * checkpoint) that end with a `commit` mark; one unit is one `write` + `fsync`. On load, entries after
 * the last commit mark are ignored and reported: a crash mid-write restores the unit before.
 *
 * This module is pure (no I/O): the store reads and writes the bytes, this module says what they mean.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { canonicalJson } from './canonical.js';
import { sha256Hex } from './hash.js';
import type { Item } from './items.js';
import { ItemValidationError, validateItem } from './validate.js';

/** Where a fork came from. */
export interface Lineage {
  conversation: string;
  agent: string;
  /** The tip of the source at the time of the fork (the last copied item). */
  tip: string | null;
}

export interface LogHeader {
  t: 'header';
  /** Format version; `LOG_VERSION` for logs this code writes. */
  v: number;
  conversation: string;
  agent: string;
  created: string;
  forkedFrom?: Lineage;
  /**
   * The system prompt the history was recorded under (an importer's), fixed when the log is created:
   * views and compaction send it unless the caller gives another.
   */
  system?: string;
}

/** A labelled position: the gap right after item `at` (`null`: before the first item). */
export interface Checkpoint {
  label: string;
  at: string | null;
  /** Last committed turn when it was set. */
  turn: number;
  time: string;
  /** Absolute path → sha256 of its content at the checkpoint, or `null` when the file did not exist. */
  files: Record<string, string | null>;
}

export type LogEntry =
  | { t: 'item'; item: Item }
  | { t: 'tip'; tip: string | null }
  | { t: 'checkpoint'; checkpoint: Checkpoint }
  | { t: 'commit'; turn: number; time: string };

/** Current format version. Versions are 1-based; `MIGRATIONS[k]` upgrades an entry from k+1 to k+2. */
export const LOG_VERSION = 1;

/** Upgrades one parsed entry (or the header, `t: 'header'`) by one version step. */
export type Migration = (entry: Record<string, unknown>) => Record<string, unknown>;

/**
 * One function per version step, index = from-version − 1. Empty while the format is at version 1;
 * when v2 arrives, its step is appended here and `LOG_VERSION` becomes `MIGRATIONS.length + 1`.
 */
export const MIGRATIONS: readonly Migration[] = [];

export type LogProblemKind =
  'header' | 'malformed' | 'chain' | 'invalid' | 'uncommitted' | 'version' | 'reference' | 'truncated';

/** Something wrong with a log, by line number (1-based). */
export interface LogProblem {
  kind: LogProblemKind;
  line: number;
  message: string;
}

export interface ParsedLog {
  header: LogHeader | undefined;
  /** Committed entries (commit marks included) in file order, with their line numbers. */
  entries: { line: number; entry: LogEntry }[];
  /** Hash of the last committed line (the next entry's `prev`); `undefined` for an empty file. */
  lastHash: string | undefined;
  /** Number of lines up to and including the last commit mark (or the header when nothing is committed). */
  committedLines: number;
  /** Byte length of that committed prefix: the offset a writer continues from. */
  committedBytes: number;
  /** Line number → hash of the header and of every commit-mark line (to check a head recorded elsewhere). */
  commitHashes: Map<number, string>;
  problems: LogProblem[];
}

/** Encodes the header line (no `prev`: it starts the chain). */
export function encodeHeader(header: LogHeader): { text: string; hash: string } {
  const text = canonicalJson(header);
  return { text: text + '\n', hash: sha256Hex(text) };
}

/** Where one line of a log is: its byte offset, its length in bytes (without the '\n') and its sha256. */
export interface LineLocation {
  /** Byte offset in the log file; a store that keeps lines as rows puts the line number here. */
  offset: number;
  length: number;
  hash: string;
}

/**
 * Encodes entries as chained lines after a line whose hash is `prev`. `lines` gives each line's length
 * and hash, with offsets counted from the start of `text`.
 */
export function encodeEntries(
  entries: readonly LogEntry[],
  prev: string,
): { text: string; lastHash: string; lines: LineLocation[] } {
  let text = '';
  let hash = prev;
  let offset = 0;
  const lines: LineLocation[] = [];
  for (const entry of entries) {
    const line = canonicalJson({ ...entry, prev: hash });
    hash = sha256Hex(line);
    text += line + '\n';
    const length = Buffer.byteLength(line);
    lines.push({ offset, length, hash });
    offset += length + 1;
  }
  return { text, lastHash: hash, lines };
}

/**
 * Decodes one committed entry line of a log written in format `version` (bytes without the '\n'), as
 * the parser does: JSON, migrations to the current version, then validation. Throws with the reason.
 * A store that dropped an item from memory reads it back through this.
 */
export function decodeEntryLine(
  bytes: Uint8Array,
  version: number,
  migrations: readonly Migration[] = MIGRATIONS,
): LogEntry {
  return decodeEntryText(decodeLine(bytes), version, migrations);
}

/** `decodeEntryLine` for a line already held as text (a store whose lines are strings). */
export function decodeEntryText(
  text: string,
  version: number,
  migrations: readonly Migration[] = MIGRATIONS,
): LogEntry {
  return decodeEntryValue(JSON.parse(text), version, migrations);
}

/** `decodeEntryLine` for a line already parsed as JSON (by a reader that hashed and parsed it elsewhere). */
export function decodeEntryValue(
  parsed: unknown,
  version: number,
  migrations: readonly Migration[] = MIGRATIONS,
): LogEntry {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('not a JSON object');
  return checkEntry(migrate(parsed as Record<string, unknown>, version, migrations));
}

function checkEntry(raw: Record<string, unknown>): LogEntry {
  switch (raw.t) {
    case 'item':
      return { t: 'item', item: validateItem(raw.item) };
    case 'tip':
      if (raw.tip !== null && typeof raw.tip !== 'string')
        throw new Error(`tip entry: 'tip' expected an item id or null`);
      return { t: 'tip', tip: raw.tip };
    case 'checkpoint': {
      const c = raw.checkpoint as Record<string, unknown> | undefined;
      if (typeof c !== 'object' || c === null)
        throw new Error(`checkpoint entry: 'checkpoint' expected an object`);
      if (typeof c.label !== 'string' || c.label.length === 0)
        throw new Error(`checkpoint entry: 'label' expected a string`);
      if (c.at !== null && typeof c.at !== 'string')
        throw new Error(`checkpoint '${c.label}': 'at' expected an item id or null`);
      if (!Number.isInteger(c.turn)) throw new Error(`checkpoint '${c.label}': 'turn' expected an integer`);
      if (typeof c.files !== 'object' || c.files === null)
        throw new Error(`checkpoint '${c.label}': 'files' expected an object`);
      return { t: 'checkpoint', checkpoint: c as unknown as Checkpoint };
    }
    case 'commit':
      if (!Number.isInteger(raw.turn))
        throw new Error(`commit entry: 'turn' expected an integer, found ${String(raw.turn)}`);
      return { t: 'commit', turn: raw.turn as number, time: String(raw.time) };
    default:
      throw new Error(
        `unknown entry type ${JSON.stringify(raw.t)} (expected header|item|tip|checkpoint|commit)`,
      );
  }
}

/** A line's text; a TypeError when the bytes are not UTF-8 (Buffer's decoder is ~2× TextDecoder's). */
function decodeLine(bytes: Uint8Array): string {
  if (!isUtf8(bytes)) throw new TypeError('not valid UTF-8');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
const NEWLINE = 0x0a;

/**
 * Parses a log line by line, so a caller can stream a file of any size through it without holding
 * the file (or one string of it) in memory: `line()` for every line in order (bytes without the
 * '\n'), then `finish()`. Offsets are counted in bytes as written, whatever the bytes hold. Never throws
 * on bad content: every problem is reported with its line number and the rest loads. Malformed or
 * invalid lines (invalid UTF-8 included) are skipped; the hash chain is checked over the raw bytes of
 * every line (malformed ones included), so a broken link says exactly where the file was altered.
 */
export class LogParser {
  private readonly migrations: readonly Migration[];
  private readonly current: number;
  private readonly problems: LogProblem[] = [];
  private readonly entries: ParsedLog['entries'] = [];
  private header: LogHeader | undefined;
  private pending: ParsedLog['entries'] = [];
  private pendingFrom = 0;
  private expectedPrev: string | undefined;
  private lastHash: string | undefined;
  private committedLines = 0;
  private committedBytes = 0;
  private offset = 0;
  private lineNo = 0;
  private version: number;
  /** Set when the header names a version this code cannot read: later lines are not interpreted. */
  private stopped = false;
  private readonly commitHashes = new Map<number, string>();

  private readonly keepEntries: boolean;
  private readonly onCommitted: ((line: number, entry: LogEntry, at: LineLocation) => void) | undefined;
  /** Where each pending entry's line is (parallel to `pending`). */
  private pendingAt: LineLocation[] = [];

  /**
   * `onCommitted` receives every committed entry in order as its commit mark is read, with where its
   * line is in the file; with `keepEntries: false` the result's `entries` stay empty, so a caller that
   * only summarises a log (reindex) or keeps an index of it (a history) holds one unit at a time, not
   * the log.
   */
  constructor(
    options: {
      migrations?: readonly Migration[];
      keepEntries?: boolean;
      onCommitted?: (line: number, entry: LogEntry, at: LineLocation) => void;
    } = {},
  ) {
    this.keepEntries = options.keepEntries ?? true;
    this.onCommitted = options.onCommitted;
    this.migrations = options.migrations ?? MIGRATIONS;
    this.current = this.migrations.length + 1;
    this.version = this.current;
  }

  /** One complete line, without its '\n'. */
  line(bytes: Uint8Array): void {
    const lineNo = ++this.lineNo;
    const start = this.offset;
    this.offset += bytes.length + 1;
    if (this.stopped) return;
    const hash = sha256Hex(bytes);
    let raw: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(decodeLine(bytes));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not a JSON object');
      raw = parsed as Record<string, unknown>;
    } catch (err) {
      const why = err instanceof TypeError ? 'not valid UTF-8' : (err as Error).message;
      this.problems.push({
        kind: 'malformed',
        line: lineNo,
        message: `line ${lineNo}: not valid JSON (${why})`,
      });
      this.expectedPrev = hash;
      return;
    }
    if (lineNo === 1) {
      this.expectedPrev = hash;
      if (raw.t !== 'header') {
        this.problems.push({
          kind: 'header',
          line: 1,
          message: `line 1: expected the header entry, found ${JSON.stringify(raw.t)} (was the start of the log cut off?)`,
        });
      } else {
        const current = this.current;
        if (!Number.isInteger(raw.v) || (raw.v as number) < 1 || (raw.v as number) > current) {
          this.problems.push({
            kind: 'version',
            line: 1,
            message: `line 1: log format version ${String(raw.v)} is not supported (this code reads 1..${current})`,
          });
          this.stopped = true;
          this.lastHash = hash;
          this.committedLines = 1;
          this.committedBytes = this.offset;
          return;
        }
        this.version = raw.v as number;
        this.header = migrate(raw, this.version, this.migrations) as unknown as LogHeader;
        this.committedLines = 1;
        this.committedBytes = this.offset;
        this.lastHash = hash;
        this.commitHashes.set(1, hash);
        return;
      }
    }
    this.checkPrev(lineNo, raw.prev, hash);
    let entry: LogEntry;
    try {
      // checkEntry builds a fresh entry from the known fields, which leaves `prev` behind.
      entry = checkEntry(migrate(raw, this.version, this.migrations));
    } catch (err) {
      const message = err instanceof ItemValidationError || err instanceof Error ? err.message : String(err);
      this.problems.push({ kind: 'invalid', line: lineNo, message: `line ${lineNo}: ${message}` });
      return;
    }
    this.accept(lineNo, entry, { offset: start, length: bytes.length, hash });
  }

  /**
   * An item line known by its index alone: its byte length, its sha256 and the `prev` it carries, as a
   * store that keeps lines as rows recorded them when they were written. It takes part in the hash
   * chain and in units exactly like `line()`, without its bytes being read: the item is `{ id, parent }`
   * only (`entry.item` holds nothing else), not validated here; the store checks the bytes against
   * `hash` and decodes them (`decodeEntryLine`) when the item is asked for.
   */
  indexedItem(length: number, hash: string, prev: string | null, id: string, parent: string | null): void {
    const lineNo = ++this.lineNo;
    const start = this.offset;
    this.offset += length + 1;
    if (this.stopped) return;
    if (lineNo === 1) {
      this.problems.push({
        kind: 'header',
        line: 1,
        message: `line 1: expected the header entry, found "item" (was the start of the log cut off?)`,
      });
      this.expectedPrev = hash;
      return;
    }
    this.checkPrev(lineNo, prev, hash);
    const item = { id, parent } as Item;
    this.accept(lineNo, { t: 'item', item }, { offset: start, length, hash });
  }

  private checkPrev(lineNo: number, prev: unknown, hash: string): void {
    if (prev !== this.expectedPrev) {
      this.problems.push({
        kind: 'chain',
        line: lineNo,
        message: `line ${lineNo}: hash chain broken (prev does not match line ${lineNo - 1}; a line was altered, removed or inserted)`,
      });
    }
    this.expectedPrev = hash;
  }

  private accept(lineNo: number, entry: LogEntry, at: LineLocation): void {
    const hash = at.hash;
    if (this.pending.length === 0) this.pendingFrom = lineNo;
    this.pending.push({ line: lineNo, entry });
    this.pendingAt.push(at);
    if (entry.t === 'commit') {
      for (let i = 0; i < this.pending.length; i++) {
        const p = this.pending[i]!;
        if (this.keepEntries) this.entries.push(p);
        this.onCommitted?.(p.line, p.entry, this.pendingAt[i]!);
      }
      this.pending = [];
      this.pendingAt = [];
      this.committedLines = lineNo;
      this.committedBytes = this.offset;
      this.lastHash = hash;
      this.commitHashes.set(lineNo, hash);
    }
  }

  /** Ends the log; `tornBytes` is how many bytes follow the last '\n' (a torn last line). */
  finish(tornBytes = 0): ParsedLog {
    const { header, entries, lastHash, committedLines, committedBytes, commitHashes, problems } = this;
    if (this.stopped) {
      return {
        header: undefined,
        entries: [],
        lastHash,
        committedLines,
        committedBytes,
        commitHashes,
        problems,
      };
    }
    const pending = this.pending;
    const lines = this.lineNo;
    const tornLine = tornBytes > 0;
    if (lines === 0) {
      // Logs are created with their header in one rename, so no crash leaves a log without one.
      problems.push({
        kind: 'header',
        line: 1,
        message:
          tornBytes === 0
            ? 'the log is empty (0 bytes): its header line is missing'
            : `the log has no complete line (${tornBytes} bytes): its header line is missing`,
      });
      return { header, entries, lastHash, committedLines, committedBytes, commitHashes, problems };
    }
    if (pending.length > 0 || tornLine) {
      const from = pending.length > 0 ? this.pendingFrom : lines + 1;
      const to = lines + (tornLine ? 1 : 0);
      const items = pending.filter((p) => p.entry.t === 'item').length;
      problems.push({
        kind: 'uncommitted',
        line: from,
        message:
          `lines ${from}-${to} come after the last commit mark (line ${committedLines}) and were ignored: ` +
          `${pending.length} complete entr${pending.length === 1 ? 'y' : 'ies'} (${items} item${items === 1 ? '' : 's'})` +
          (tornLine ? ' and a torn last line' : ''),
      });
    }
    return { header, entries, lastHash, committedLines, committedBytes, commitHashes, problems };
  }
}

/** Feeds every complete line of `bytes` to `parser`; returns how many bytes follow the last '\n'. */
export function feedLines(parser: LogParser, bytes: Uint8Array): number {
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end < 0) return bytes.length - start;
    parser.line(bytes.subarray(start, end));
    start = end + 1;
  }
}

/**
 * Parses a whole log held in memory (text, or bytes as read from disk). A store reading a file should
 * stream it through `LogParser` instead. See `LogParser` for what is reported.
 */
export function parseLog(
  text: string | Uint8Array,
  options: { migrations?: readonly Migration[] } = {},
): ParsedLog {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const parser = new LogParser(options);
  return parser.finish(feedLines(parser, bytes));
}

function migrate(
  raw: Record<string, unknown>,
  from: number,
  migrations: readonly Migration[],
): Record<string, unknown> {
  let out = raw;
  for (let v = from; v <= migrations.length; v++) out = migrations[v - 1]!(out);
  return out;
}
