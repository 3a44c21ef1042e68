/**
 * `node scripts/runtimes.mjs` (CI, after the build): runs scripts/runtime-smoke.mjs under Node, Bun and
 * Deno. Bun and Deno come from their npm packages (`bun`, `deno`: the binary ships inside a registry
 * package), installed once into node_modules/.cache/glyphfold-runtimes; a runtime that cannot be
 * installed is skipped with the reason printed. workerd (the Workers runtime) is not run here: it needs
 * a Cap'n Proto config and a worker bundle of its own (see docs/package.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = join(import.meta.dirname, '..');
const cache = join(repo, 'node_modules', '.cache', 'glyphfold-runtimes');
const smoke = join(repo, 'scripts', 'runtime-smoke.mjs');
const RUNTIMES = {
  bun: { pkg: 'bun@^1.4', args: [smoke] },
  deno: { pkg: 'deno@^2.9', args: ['run', '--allow-read', smoke] },
};

function binary(name, pkg) {
  const bin = join(cache, 'node_modules', '.bin', name);
  if (existsSync(bin)) return bin;
  mkdirSync(cache, { recursive: true });
  if (!existsSync(join(cache, 'package.json')))
    writeFileSync(join(cache, 'package.json'), '{"private":true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', pkg], {
    cwd: cache,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!existsSync(bin)) throw new Error(`${pkg} installed no ${name} binary`);
  return bin;
}

let failed = 0;
execFileSync(process.execPath, [smoke], { stdio: 'inherit' });
for (const [name, { pkg, args }] of Object.entries(RUNTIMES)) {
  let bin;
  try {
    bin = binary(name, pkg);
  } catch (err) {
    console.log(`${name}: skipped, could not be installed from npm (${String(err).split('\n')[0]})`);
    continue;
  }
  try {
    execFileSync(bin, args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } });
  } catch {
    console.log(`${name}: the smoke test failed`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
