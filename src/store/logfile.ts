/**
 * One agent-history log on disk: create with a header, read + parse, append a unit with one write and
 * an fsync, and set aside an uncommitted tail before a writer continues.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { encodeHeader, feedLines, LogParser, type LogHeader, type ParsedLog } from '../transcript/log.js';

/** Makes a rename or a new entry in `dir` durable (a file's own fsync does not cover its name). */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Creates the log with its header, atomically (write aside, fsync, rename, fsync the directory). */
export function createLog(path: string, header: LogHeader): void {
  writeLogAtomically(path, Buffer.from(encodeHeader(header).text));
}

/**
 * Writes a whole log file atomically: aside, fsync, rename over `path`, fsync the directory. The
 * caller holds the history's writer lock (so no other writer creates `path` meanwhile).
 */
export function writeLogAtomically(path: string, data: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.new-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

/** Bytes read per call when streaming a log: the only buffer a load needs besides one line. */
const READ_CHUNK = 1 << 20;

/**
 * Reads and parses the log at `path`, streaming it in chunks of `chunkSize` bytes: no string or buffer
 * of the whole file is ever made, so a log's size is limited by the entries it holds, not by the
 * largest string the runtime can build. Offsets in the result are bytes.
 */
export function readLog(
  path: string,
  chunkSize = READ_CHUNK,
  options: ConstructorParameters<typeof LogParser>[0] = {},
): ParsedLog {
  const parser = new LogParser(options);
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(chunkSize);
    let carry: Buffer | undefined; // the start of a line that continues in the next chunk
    for (;;) {
      const n = readSync(fd, chunk, 0, chunkSize, null);
      if (n === 0) break;
      const data = carry ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      const rest = feedLines(parser, data);
      // Copy: `chunk` is overwritten by the next read.
      carry = rest > 0 ? Buffer.from(data.subarray(data.length - rest)) : undefined;
    }
    return parser.finish(carry?.length ?? 0);
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves the bytes after the last commit mark into `<log>.tail-<time>` (kept for inspection, never
 * deleted) and truncates the log there, so the next unit chains from the last committed line.
 * Returns the file the tail went to, or `undefined` when there was none.
 */
export function setAsideTail(path: string, parsed: ParsedLog): string | undefined {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (size <= parsed.committedBytes) return undefined;
    // Only the tail is read (a torn unit, at most one commit's size), never the whole log.
    const tail = Buffer.allocUnsafe(size - parsed.committedBytes);
    let done = 0;
    while (done < tail.length) {
      const n = readSync(fd, tail, done, tail.length - done, parsed.committedBytes + done);
      if (n === 0) break;
      done += n;
    }
    const aside = `${path}.tail-${Date.now()}-${process.pid}`;
    writeFileSync(aside, tail.subarray(0, done));
    const asideFd = openSync(aside, 'r');
    try {
      fsyncSync(asideFd);
    } finally {
      closeSync(asideFd);
    }
    ftruncateSync(fd, parsed.committedBytes);
    fsyncSync(fd);
    return aside;
  } finally {
    closeSync(fd);
  }
}

/**
 * The system calls an appender makes. The store passes `nodeLogIo`; a test passes its own copy with a
 * `write` that fails at a chosen byte (a full disk) to check that every failure is rolled back.
 */
export interface LogIo {
  write(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fsync(fd: number): void;
  truncate(fd: number, length: number): void;
}

export const nodeLogIo: LogIo = {
  write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
  fsync: (fd) => fsyncSync(fd),
  truncate: (fd, length) => ftruncateSync(fd, length),
};

/** A unit could not be written; the log was rolled back to its last commit, so a retry appends cleanly. */
export class LogWriteError extends Error {
  override name = 'LogWriteError';
  constructor(
    message: string,
    /** The system error (`ENOSPC`, `EIO`, …). */
    override readonly cause: unknown,
    /** False when even the rollback failed: the appender refuses further writes until reopened. */
    readonly rolledBack: boolean,
  ) {
    super(message);
  }
}

/**
 * Default largest log, in bytes: 1 GiB. Opening a log costs an index of its items, not its bytes (a
 * 2 GiB log opens in < 200 MB), but building a request reads the whole active path into memory, and
 * there is no segment rotation: the limit keeps every history usable. `commit()` past it throws
 * `LogFullError` and writes nothing. `Workspace.open(dir, { maxLogBytes })` changes it.
 */
export const DEFAULT_MAX_LOG_BYTES = 1 << 30;

/** A unit would take the log past its size limit; nothing was written. */
export class LogFullError extends Error {
  override name = 'LogFullError';
}

/** An open log for appending. */
export class LogAppender {
  private fd: number | undefined;
  /** Bytes up to the last commit mark: where a failed write is cut back to. */
  private committed: number;
  private broken: string | undefined;

  constructor(
    readonly path: string,
    private readonly io: LogIo = nodeLogIo,
    private readonly maxBytes = DEFAULT_MAX_LOG_BYTES,
  ) {
    if (!existsSync(path)) throw new Error(`log ${path} does not exist`);
    this.fd = openSync(path, 'a');
    this.committed = fstatSync(this.fd).size;
  }

  /**
   * Appends `text` with one write (looping only on a short write) and fsyncs before returning. When the
   * write or the fsync fails (a full disk, an I/O error), the file is truncated back to the last commit
   * mark and fsynced before this throws `LogWriteError`: no partial unit stays behind to be read later.
   */
  append(text: string): void {
    if (this.fd === undefined) throw new Error(`log ${this.path} is closed`);
    if (this.broken !== undefined) throw new Error(this.broken);
    const fd = this.fd;
    const buf = Buffer.from(text, 'utf8');
    if (this.committed + buf.length > this.maxBytes)
      throw new LogFullError(
        `log ${this.path}: this unit of ${buf.length} bytes would take the log to ${this.committed + buf.length} bytes, ` +
          `over its limit of ${this.maxBytes} (maxLogBytes); nothing was written. Continue in a new conversation, ` +
          `or raise maxLogBytes (building a request reads the whole active path into memory)`,
      );
    let done = 0;
    try {
      while (done < buf.length) done += this.io.write(fd, buf, done, buf.length - done);
      this.io.fsync(fd);
    } catch (err) {
      const why = `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      try {
        this.io.truncate(fd, this.committed);
        this.io.fsync(fd);
      } catch (rollbackErr) {
        this.broken = `log ${this.path}: a failed write could not be rolled back (${why}, then ${(rollbackErr as NodeJS.ErrnoException).code ?? (rollbackErr as Error).message}); bytes after offset ${this.committed} are not committed: reopen the history to set them aside`;
        throw new LogWriteError(this.broken, err, false);
      }
      throw new LogWriteError(
        `log ${this.path}: writing ${buf.length} bytes failed after ${done} (${why}); nothing was committed and the log is back at its last commit (${this.committed} bytes)`,
        err,
        true,
      );
    }
    this.committed += buf.length;
  }

  /** Bytes of the log up to its last commit mark: where the next unit starts. */
  get size(): number {
    return this.committed;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
