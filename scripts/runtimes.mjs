/**
 * `node scripts/runtimes.mjs` (CI, after the build): runs scripts/runtime-smoke.mjs under Node, Bun and
 * Deno. Bun and Deno come from their npm packages (`bun`, `deno`: the binary ships inside a registry
 * package), installed once into node_modules/.cache/glyphfold-runtimes/<name>; a runtime that cannot be
 * installed is skipped with the reason printed. workerd (the Workers runtime, npm package `workerd`)
 * runs the same checks as a module worker (scripts/runtime-worker.mjs, bundled into one module by
 * esbuild) served on a free 127.0.0.1 port from a Cap'n Proto config written here; one request runs it.
 * The WASM core goes in as a `wasm` module of that config: workerd refuses run-time compiles.
 * Each runtime's line ends with the sha256 of the same snapshot pages (runtime-checks.mjs); the run
 * fails unless every runtime gives the same bytes.
 */
/* global fetch */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';

const repo = join(import.meta.dirname, '..');
const cache = join(repo, 'node_modules', '.cache', 'glyphfold-runtimes');
const smoke = join(repo, 'scripts', 'runtime-smoke.mjs');
const RUNTIMES = {
  bun: { pkg: 'bun@^1.4', args: [smoke] },
  deno: { pkg: 'deno@^2.9', args: ['run', '--allow-read', smoke] },
};

function binary(name, pkg) {
  // One directory per runtime: an `npm install --no-save` prunes what an earlier one installed.
  const dir = join(cache, name);
  const bin = join(dir, 'node_modules', '.bin', name);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', pkg], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!existsSync(bin)) throw new Error(`${pkg} installed no ${name} binary`);
  return bin;
}

let failed = 0;
/** Each runtime's digest of the same snapshot pages (runtime-checks.mjs): they must all agree. */
const digests = new Map();
function report(line) {
  console.log(line.trim());
  const digest = /pages sha256 ([0-9a-f]+)$/.exec(line.trim())?.[1];
  if (digest) digests.set(line.split(':')[0], digest);
  else {
    console.log('  (no page digest in that line)');
    failed++;
  }
}
const run = (bin, args) =>
  execFileSync(bin, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NO_COLOR: '1' },
  });
report(run(process.execPath, [smoke]));
for (const [name, { pkg, args }] of Object.entries(RUNTIMES)) {
  let bin;
  try {
    bin = binary(name, pkg);
  } catch (err) {
    console.log(`${name}: skipped, could not be installed from npm (${String(err).split('\n')[0]})`);
    continue;
  }
  try {
    report(run(bin, args));
  } catch {
    console.log(`${name}: the smoke test failed`);
    failed++;
  }
}

// workerd: the worker bundle and its config, then one request to a workerd serving it.
const WORKERD = 'workerd@^1.20261117';
// The compatibility date must not be later than the installed workerd's own date.
const COMPAT_DATE = '2026-11-01';

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function runWorkerd(bin) {
  const label = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim(); // e.g. workerd 2026-11-17
  const dir = join(cache, 'workerd', 'smoke');
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: [join(repo, 'scripts', 'runtime-worker.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: join(dir, 'worker.mjs'),
    external: ['glyphfold.wasm'],
    logLevel: 'error',
  });
  copyFileSync(join(repo, 'build', 'glyphfold.wasm'), join(dir, 'glyphfold.wasm'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "smoke", worker = .smoke)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "smoke")],
);
const smoke :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "worker.mjs"),
    (name = "glyphfold.wasm", wasm = embed "glyphfold.wasm"),
  ],
  compatibilityDate = "${COMPAT_DATE}",
);
`,
  );
  const child = spawn(bin, ['serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const died = exited.then((code) =>
    Promise.reject(new Error(`workerd exited with code ${code} before answering`)),
  );
  died.catch(() => {}); // it rejects at the normal stop too, once nobody waits on it
  try {
    // Poll until the socket listens (workerd prints nothing when ready); give up if it exits.
    for (let attempt = 0; ; attempt++) {
      const res = await Promise.race([
        fetch(`http://127.0.0.1:${port}/smoke?runtime=${encodeURIComponent(label)}`).catch((err) =>
          attempt < 300 ? null : Promise.reject(err),
        ),
        died,
      ]);
      if (res) {
        const json = await res.json();
        if (res.status !== 200 || json.ok !== true) throw new Error(json.error ?? JSON.stringify(json));
        return json.result;
      }
      await sleep(100);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

let workerd;
try {
  workerd = binary('workerd', WORKERD);
} catch (err) {
  console.log(`workerd: skipped, could not be installed from npm (${String(err).split('\n')[0]})`);
}
if (workerd) {
  try {
    report(await runWorkerd(workerd));
  } catch (err) {
    console.log(`workerd: the smoke test failed: ${String(err?.stack ?? err)}`);
    failed++;
  }
}
const distinct = new Set(digests.values());
if (distinct.size > 1) {
  console.log(`snapshot bytes differ between runtimes: ${JSON.stringify(Object.fromEntries(digests))}`);
  failed++;
} else if (distinct.size === 1) {
  console.log(`snapshot bytes identical on ${[...digests.keys()].join(', ')} (sha256 ${[...distinct][0]})`);
}
process.exit(failed ? 1 : 0);
