#!/usr/bin/env node
// `npm run mutate [-- stryker options]`: runs Stryker (stryker.config.mjs), then prints the score per module.
import { spawnSync } from 'node:child_process';

const started = Date.now();
const r = spawnSync('npx', ['stryker', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
console.log(`mutate: ${Math.round((Date.now() - started) / 1000)} s`);
if (r.status === 0) spawnSync(process.execPath, ['scripts/mutation-table.mjs'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
