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

/** Encodes entries as chained lines after a line whose hash is `prev`. */
export function encodeEntries(
  entries: readonly LogEntry[],
  prev: string,
): { text: string; lastHash: string } {
  let text = '';
  let hash = prev;
  for (const entry of entries) {
    const line = canonicalJson({ ...entry, prev: hash });
    hash = sha256Hex(line);
    text += line + '\n';
  }
  return { text, lastHash: hash };
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

/**
 * Parses a log. Never throws on bad content: every problem is reported with its line number and the
 * rest loads. Malformed or invalid lines are skipped; the hash chain is checked over the raw bytes of
 * every line (malformed ones included), so a broken link says exactly where the file was altered.
 */
export function parseLog(text: string, options: { migrations?: readonly Migration[] } = {}): ParsedLog {
  const migrations = options.migrations ?? MIGRATIONS;
  const current = migrations.length + 1;
  const problems: LogProblem[] = [];
  const entries: ParsedLog['entries'] = [];
  let header: LogHeader | undefined;
  let pending: ParsedLog['entries'] = [];
  let pendingFrom = 0;
  let expectedPrev: string | undefined;
  let lastHash: string | undefined;
  let committedLines = 0;
  let committedBytes = 0;
  let offset = 0;
  let version = current;
  const commitHashes = new Map<number, string>();

  const lines = text.split('\n');
  // A file that ends in '\n' splits into a trailing ''; anything else there is a torn last line.
  const torn = lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i]!;
    // Character offset; converted to bytes once at the end (per-line byteLength costs ~10% of a load).
    offset += line.length + 1;
    const hash = sha256Hex(line);
    let raw: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not a JSON object');
      raw = parsed as Record<string, unknown>;
    } catch (err) {
      problems.push({
        kind: 'malformed',
        line: lineNo,
        message: `line ${lineNo}: not valid JSON (${(err as Error).message})`,
      });
      expectedPrev = hash;
      continue;
    }
    if (lineNo === 1) {
      expectedPrev = hash;
      if (raw.t !== 'header') {
        problems.push({
          kind: 'header',
          line: 1,
          message: `line 1: expected the header entry, found ${JSON.stringify(raw.t)} (was the start of the log cut off?)`,
        });
      } else {
        if (!Number.isInteger(raw.v) || (raw.v as number) < 1 || (raw.v as number) > current) {
          problems.push({
            kind: 'version',
            line: 1,
            message: `line 1: log format version ${String(raw.v)} is not supported (this code reads 1..${current})`,
          });
          return {
            header: undefined,
            entries: [],
            lastHash: hash,
            committedLines: 1,
            committedBytes: Buffer.byteLength(text.slice(0, offset)),
            commitHashes,
            problems,
          };
        }
        version = raw.v as number;
        header = migrate(raw, version, migrations) as unknown as LogHeader;
        committedLines = 1;
        committedBytes = offset;
        lastHash = hash;
        commitHashes.set(1, hash);
        continue;
      }
    }
    if (raw.prev !== expectedPrev) {
      problems.push({
        kind: 'chain',
        line: lineNo,
        message: `line ${lineNo}: hash chain broken (prev does not match line ${lineNo - 1}; a line was altered, removed or inserted)`,
      });
    }
    expectedPrev = hash;
    let entry: LogEntry;
    try {
      // checkEntry builds a fresh entry from the known fields, which leaves `prev` behind.
      entry = checkEntry(migrate(raw, version, migrations));
    } catch (err) {
      const message = err instanceof ItemValidationError || err instanceof Error ? err.message : String(err);
      problems.push({ kind: 'invalid', line: lineNo, message: `line ${lineNo}: ${message}` });
      continue;
    }
    if (pending.length === 0) pendingFrom = lineNo;
    if (entry.t === 'commit') {
      for (const p of pending) entries.push(p);
      entries.push({ line: lineNo, entry });
      pending = [];
      committedLines = lineNo;
      committedBytes = offset;
      lastHash = hash;
      commitHashes.set(lineNo, hash);
    } else {
      pending.push({ line: lineNo, entry });
    }
  }
  committedBytes = Buffer.byteLength(text.slice(0, committedBytes));
  const tornLine = torn !== undefined && torn.length > 0;
  if (pending.length > 0 || tornLine) {
    const from = pending.length > 0 ? pendingFrom : lines.length + 1;
    const to = lines.length + (tornLine ? 1 : 0);
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

function migrate(
  raw: Record<string, unknown>,
  from: number,
  migrations: readonly Migration[],
): Record<string, unknown> {
  let out = raw;
  for (let v = from; v <= migrations.length; v++) out = migrations[v - 1]!(out);
  return out;
}
