/** The hash that chains log entries and names content-addressed file snapshots. */
import { createHash } from 'node:crypto';

/** Lower-case hex sha256 of a UTF-8 string or bytes. */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
