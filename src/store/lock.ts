/**
 * One writer per conversation-and-agent: a lock file created with O_EXCL holding the writer's pid and,
 * on Linux, the process start time (/proc/<pid>/stat field 22). A lock whose process no longer runs is
 * stale and is taken over (after a crash, nobody has to clean up). The start time tells a live writer
 * from an unrelated process that reuses its pid (PID 1 after a container restart, say).
 */
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
  constants,
} from 'node:fs';
import { HistoryLockedError } from '../tree/backend.js';

/**
 * Lock files this process holds now, by device and inode (one file may be reached by several paths):
 * its own pid in any other lock file is left over from a past life of the pid.
 */
const held = new Set<string>();
const fileKey = (st: { dev: number; ino: number }) => `${st.dev}:${st.ino}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The start time of `pid` in clock ticks since boot (proc(5), /proc/<pid>/stat field 22), or
 * `undefined` where /proc is not there. Field 2 (the command name) may hold spaces and parentheses, so
 * fields are counted after its closing parenthesis.
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 is fields[19].
  return fields[19];
}

/** True when the lock text names a process that runs now and is the one that wrote the lock. */
function holderRuns(path: string, pid: number, start: string | undefined): boolean {
  if (pid === process.pid) {
    try {
      return held.has(fileKey(statSync(path)));
    } catch {
      return false;
    }
  }
  if (!alive(pid)) return false;
  if (start === undefined) return true; // a lock without a start time: the pid is all we know
  const now = processStartTime(pid);
  return now === undefined || now === start;
}

/** Takes the lock at `path` or throws `HistoryLockedError` naming the holder. Returns the release function. */
export function acquireLock(path: string, what: string): () => void {
  const start = processStartTime(process.pid);
  const content = start === undefined ? `${process.pid}\n` : `${process.pid} ${start}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    // The lock appears with its content or not at all: written to a file of our own, then linked to
    // the lock's name (link fails if the name exists). A holder killed between creating the lock and
    // writing its pid would otherwise leave an empty lock that locks everyone out until it ages.
    const tmp = `${path}.${process.pid}.tmp`;
    const fd = openSync(tmp, constants.O_CREAT | constants.O_TRUNC | constants.O_WRONLY, 0o644);
    let linked = false;
    try {
      writeSync(fd, content);
      linkSync(tmp, path);
      linked = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        closeSync(fd);
        unlinkSync(tmp);
        throw err;
      }
    }
    if (linked) {
      const key = fileKey(fstatSync(fd));
      closeSync(fd);
      unlinkSync(tmp);
      held.add(key);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(key);
        try {
          unlinkSync(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      };
    }
    closeSync(fd);
    unlinkSync(tmp);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (readErr) {
      if ((readErr as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      throw readErr;
    }
    // split always yields a first field ('' for an empty file).
    const [pidText, holderStart] = text.trim().split(/\s+/) as [string, ...string[]];
    const pid = Number.parseInt(pidText, 10);
    if (Number.isInteger(pid) && pid > 0 && holderRuns(path, pid, holderStart))
      throw new HistoryLockedError(`${what} is open for writing by process ${pid} (lock file ${path})`);
    if ((!Number.isInteger(pid) || pid <= 0) && Date.now() - statSync(path).mtimeMs < 2000)
      // An empty lock is written by an older glyphfold (create, then write the pid): fresh, it may be
      // being taken right now.
      throw new HistoryLockedError(
        `${what} is being opened for writing by another process (lock file ${path})`,
      );
    try {
      unlinkSync(path); // stale: its process is gone, or the pid now belongs to another process
    } catch (unlinkErr) {
      if ((unlinkErr as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkErr;
    }
  }
  throw new HistoryLockedError(`${what}: could not take the lock ${path} (it keeps changing hands)`);
}
