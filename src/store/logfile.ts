/**
 * One agent-history log on disk: create with a header, read + parse, append a unit with one write and
 * an fsync, and set aside an uncommitted tail before a writer continues.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { encodeHeader, parseLog, type LogHeader, type ParsedLog } from '../transcript/log.js';

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Creates the log with its header, atomically (write aside, fsync, rename, fsync the directory). */
export function createLog(path: string, header: LogHeader): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.new-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, encodeHeader(header).text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

export function readLog(path: string): ParsedLog {
  return parseLog(readFileSync(path, 'utf8'));
}

/**
 * Moves the bytes after the last commit mark into `<log>.tail-<time>` (kept for inspection, never
 * deleted) and truncates the log there, so the next unit chains from the last committed line.
 * Returns the file the tail went to, or `undefined` when there was none.
 */
export function setAsideTail(path: string, parsed: ParsedLog): string | undefined {
  const bytes = readFileSync(path);
  if (bytes.length <= parsed.committedBytes) return undefined;
  const aside = `${path}.tail-${Date.now()}-${process.pid}`;
  writeFileSync(aside, bytes.subarray(parsed.committedBytes));
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, parsed.committedBytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return aside;
}

/** An open log for appending. */
export class LogAppender {
  private fd: number | undefined;
  constructor(readonly path: string) {
    if (!existsSync(path)) throw new Error(`log ${path} does not exist`);
    this.fd = openSync(path, 'a');
  }

  /** Appends `text` with one write (looping only on a short write) and fsyncs before returning. */
  append(text: string): void {
    if (this.fd === undefined) throw new Error(`log ${this.path} is closed`);
    const buf = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < buf.length) done += writeSync(this.fd, buf, done, buf.length - done);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
