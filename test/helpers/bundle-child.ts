import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles the script a test or bench runs as a child process (to measure its memory alone) into
 * `outfile`, packages left external: put `outfile` under node_modules so they resolve as they do for
 * the package (better-sqlite3, pg).
 */
export async function bundleChild(entry: string, outfile: string): Promise<void> {
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
}
