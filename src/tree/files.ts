/** File snapshots for checkpoints: content-addressed copies in the backend's blob store. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BlobStore } from './backend.js';
import { sha256Hex } from '../transcript/hash.js';

/** Reads each file and stores its content; a missing file is recorded as `null` (restore deletes it). */
export function snapshotFiles(
  paths: readonly string[],
  cwd: string,
  blobs: BlobStore,
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
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
    out[abs] = blobs.put(bytes);
  }
  return out;
}

export interface FileRestore {
  /** Files written back with their checkpoint content. */
  restored: string[];
  /** Files that did not exist at the checkpoint and were removed. */
  deleted: string[];
  /** Files already as they were. */
  unchanged: string[];
}

/** Puts every snapshotted file back as it was. */
export function restoreFiles(files: Record<string, string | null>, blobs: BlobStore): FileRestore {
  const result: FileRestore = { restored: [], deleted: [], unchanged: [] };
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
    const bytes = blobs.get(hash);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    result.restored.push(path);
  }
  return result;
}
