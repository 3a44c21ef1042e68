/**
 * One writer per conversation-and-agent: a lock file created with O_EXCL holding the writer's pid. A
 * lock whose pid no longer runs is stale and is taken over (after a crash, nobody has to clean up).
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync, constants } from 'node:fs';
import { HistoryLockedError } from '../tree/backend.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock at `path` or throws `HistoryLockedError` naming the holder. Returns the release function. */
export function acquireLock(path: string, what: string): () => void {
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (readErr) {
        if ((readErr as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
        throw readErr;
      }
      const pid = Number.parseInt(text, 10);
      if (Number.isInteger(pid) && pid > 0 && alive(pid))
        throw new HistoryLockedError(`${what} is open for writing by process ${pid} (lock file ${path})`);
      if ((!Number.isInteger(pid) || pid <= 0) && Date.now() - statSync(path).mtimeMs < 2000)
        // A new holder creates the file, then writes its pid: an empty, fresh file is being taken now.
        throw new HistoryLockedError(
          `${what} is being opened for writing by another process (lock file ${path})`,
        );
      try {
        unlinkSync(path); // stale: its process is gone
      } catch (unlinkErr) {
        if ((unlinkErr as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkErr;
      }
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      try {
        unlinkSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    };
  }
  throw new HistoryLockedError(`${what}: could not take the lock ${path} (it keeps changing hands)`);
}
