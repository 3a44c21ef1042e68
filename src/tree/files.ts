/** File snapshots for checkpoints: content-addressed copies in the backend's blob store. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Awaitable, BlobStore } from './backend.js';
import { all, andThen as then } from './awaitable.js';
import { sha256Hex } from '../transcript/hash.js';

/** Reads each file and stores its content; a missing file is recorded as `null` (restore deletes it). */
export function snapshotFiles(
  paths: readonly string[],
  cwd: string,
  blobs: BlobStore<boolean>,
): Awaitable<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  const puts: Awaitable<void>[] = [];
  for (const p of paths) {
    const abs = resolve(cwd, p);
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        out[abs] = null;
        continue;
      }
      throw new Error(`checkpoint: cannot read ${abs}: ${(err as Error).message}`, { cause: err });
    }
    out[abs] = null; // the key's place, so the record's order is the order of `paths`
    puts.push(
      then(blobs.put(bytes), (hash) => {
        out[abs] = hash;
      }),
    );
  }
  return then(all(puts), () => out);
}

export interface FileRestore {
  /** Files written back with their checkpoint content. */
  restored: string[];
  /** Files that did not exist at the checkpoint and were removed. */
  deleted: string[];
  /** Files already as they were. */
  unchanged: string[];
}

/** Puts every snapshotted file back as it was (every blob is fetched before the first file is written). */
export function restoreFiles(
  files: Record<string, string | null>,
  blobs: BlobStore<boolean>,
): Awaitable<FileRestore> {
  const result: FileRestore = { restored: [], deleted: [], unchanged: [] };
  const toWrite: { path: string; hash: string }[] = [];
  for (const [path, hash] of Object.entries(files)) {
    const exists = existsSync(path);
    if (hash === null) {
      if (exists) {
        rmSync(path, { force: true });
        result.deleted.push(path);
      } else result.unchanged.push(path);
      continue;
    }
    if (exists && sha256Hex(readFileSync(path)) === hash) {
      result.unchanged.push(path);
      continue;
    }
    toWrite.push({ path, hash });
  }
  return then(all(toWrite.map((w) => blobs.get(w.hash))), (contents) => {
    toWrite.forEach(({ path }, i) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, contents[i]!);
      result.restored.push(path);
    });
    return result;
  });
}
