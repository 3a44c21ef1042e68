/** Content-addressed file snapshots under `<workspace>/blobs/<first two hex>/<sha256>`. */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256Hex } from '../transcript/hash.js';
import { fsyncDir } from './logfile.js';
import type { BlobStore } from '../tree/backend.js';

const HASH = /^[0-9a-f]{64}$/;

export function diskBlobs(dir: string): BlobStore {
  const pathOf = (hash: string): string => {
    if (!HASH.test(hash))
      throw new RangeError(`blob: expected a sha256 hex digest, found ${JSON.stringify(hash)}`);
    return join(dir, hash.slice(0, 2), hash);
  };
  return {
    put(bytes) {
      const hash = sha256Hex(bytes);
      const path = pathOf(hash);
      if (existsSync(path)) return hash;
      const shard = join(dir, hash.slice(0, 2));
      const created = mkdirSync(shard, { recursive: true });
      // Write aside and rename, so a crash never leaves a blob whose name lies about its content.
      const tmp = `${path}.tmp-${process.pid}`;
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, bytes);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
      // The name must be as durable as the log line that will refer to it: sync the shard directory,
      // and the directories above it that this put created.
      fsyncDir(shard);
      if (created !== undefined)
        for (let d = shard; ; d = dirname(d)) {
          fsyncDir(dirname(d));
          if (d === created || dirname(d) === d) break;
        }
      return hash;
    },
    get(hash) {
      const path = pathOf(hash);
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT')
          throw new Error(`blob ${hash} is missing from ${dir}`, { cause: err });
        throw err;
      }
      const found = sha256Hex(bytes);
      if (found !== hash) throw new Error(`blob ${path} is corrupt: expected sha256 ${hash}, found ${found}`);
      return bytes;
    },
  };
}
