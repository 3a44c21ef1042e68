/**
 * `scripts/ensure-build.mjs` on a small checkout of the same layout in a temp folder, whose build
 * scripts (real `npm run`, real files) write the outputs and log their name: a missing output runs
 * its step and the steps after it whose inputs it wrote; nothing changed runs nothing; an input newer
 * than its outputs runs its step; `--force` runs all; a failing step stops it with the step's status.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'ensure-build.mjs');
let dir: string;

const INPUTS = [
  'fonts/fonts.json',
  'fonts/a.bdf',
  'scripts/build-fonts.ts',
  'scripts/lib/fonts.ts',
  'src/render/atlas.ts',
  'src/render/bdf.ts',
  'src/render/tuned.ts',
  'assembly/index.ts',
  'asconfig.json',
  'scripts/embed-wasm.mjs',
  'src/index.ts',
  'tsconfig.base.json',
  'tsconfig.build.json',
  'scripts/bundle.mjs',
  'scripts/build-inspector.mjs',
];
const TS_OUT = [
  'dist/index.js',
  'dist/index.d.ts',
  'dist/cli/main.js',
  'dist/store/index.js',
  'dist/bundle/node/index.js',
  'dist/bundle/render/index.js',
  'dist/bundle/serverless/index.js',
  'dist/bundle/views/index.js',
  'dist/bundle/compaction/index.js',
  'dist/bundle/transcript/portable.js',
  'dist/bundle/tokens/index.js',
  'dist/inspector/ui/app.js',
  'dist/inspector/ui/app.css',
];
const OUTPUTS = {
  'build:fonts': [
    'src/render/generated/atlas-a.ts',
    'src/render/generated/cells.ts',
    'src/render/generated/atlas-sources.ts',
  ],
  'build:wasm': ['build/glyphfold.wasm', 'src/render/generated/wasm.ts'],
  'build:ts': TS_OUT,
};

/** A step's script: write its outputs, log its name (plain Node, so it runs anywhere npm does). */
function stepScript(name: string, outputs: string[]): string {
  const code =
    `const fs=require('fs'),p=require('path');` +
    `for(const f of ${JSON.stringify(outputs)}){fs.mkdirSync(p.dirname(f),{recursive:true});fs.writeFileSync(f,'x')}` +
    `fs.appendFileSync('ran.log',${JSON.stringify(name + '\n')});` +
    `if(process.env.FAIL_STEP===${JSON.stringify(name)})process.exit(3)`;
  return `node -e ${JSON.stringify(code)}`;
}

function write(path: string, text = 'x'): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** Sets a file's modification time `seconds` from now (past when negative). */
function age(path: string, seconds: number): void {
  const t = new Date(Date.now() + seconds * 1000);
  utimesSync(join(dir, path), t, t);
}

/**
 * After a run, the world as built and untouched: inputs an hour old, outputs half an hour old. A test
 * then "edits" an input by dating it a quarter of an hour ago: newer than the outputs.
 */
function settle(): void {
  for (const input of [...INPUTS, 'package.json']) age(input, -3600);
  for (const path of Object.values(OUTPUTS).flat()) {
    try {
      age(path, -1800);
    } catch {
      // not built yet
    }
  }
}

/** Runs the script on the fake checkout; returns the steps that ran, its output and status. */
function ensure(...args: string[]): { ran: string[]; out: string; status: number | null } {
  rmSync(join(dir, 'ran.log'), { force: true });
  const r = spawnSync(process.execPath, [script, '--root', dir, ...args], { encoding: 'utf8' });
  const log = join(dir, 'ran.log');
  const ran = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
  settle();
  return { ran, out: r.stdout + r.stderr, status: r.status };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'glyphfold-ensure-'));
  const scripts = Object.fromEntries(
    Object.entries(OUTPUTS).map(([name, outputs]) => [name, stepScript(name, outputs)]),
  );
  write('package.json', JSON.stringify({ name: 'fake', private: true, scripts }, null, 2));
  write('fonts/fonts.json', JSON.stringify({ fonts: [{ name: 'a', file: 'a.bdf' }] }));
  for (const input of INPUTS.filter((p) => p !== 'fonts/fonts.json')) write(input);
  settle();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ensure-build', () => {
  it('a fresh checkout: every step runs, in order, each saying why', () => {
    const r = ensure();
    expect(r.status).toBe(0);
    expect(r.ran).toEqual(['build:fonts', 'build:wasm', 'build:ts']);
    expect(r.out).toContain('npm run build:fonts (src/render/generated/atlas-a.ts is missing)');
  });

  it('nothing changed: nothing runs', () => {
    const r = ensure('--time');
    expect(r.ran).toEqual([]);
    expect(r.out).toMatch(/ensure-build: up to date; \d+ inputs stat'ed/);
  });

  it('a TypeScript source edited: only the TypeScript step runs, naming the file', () => {
    age('src/index.ts', -900);
    const r = ensure();
    expect(r.ran).toEqual(['build:ts']);
    expect(r.out).toMatch(/npm run build:ts \(src\/index\.ts is newer than dist\//);
  });

  it('a font edited: the atlases are rebuilt, and then dist/ (the atlases are its inputs)', () => {
    age('fonts/a.bdf', -900);
    expect(ensure().ran).toEqual(['build:fonts', 'build:ts']);
  });

  it('the WASM source edited: the core is rebuilt and embedded, then dist/', () => {
    age('assembly/index.ts', -900);
    expect(ensure().ran).toEqual(['build:wasm', 'build:ts']);
  });

  it('one output deleted: its step runs', () => {
    rmSync(join(dir, 'dist/bundle/views/index.js'));
    const r = ensure();
    expect(r.ran).toEqual(['build:ts']);
    expect(r.out).toContain('dist/bundle/views/index.js is missing');
  });

  it('--force runs every step', () => {
    expect(ensure('--force').ran).toEqual(['build:fonts', 'build:wasm', 'build:ts']);
  });

  it('a failing step stops the run with its exit status, naming it', () => {
    age('fonts/a.bdf', -600);
    rmSync(join(dir, 'ran.log'), { force: true });
    const r = spawnSync(process.execPath, [script, '--root', dir], {
      encoding: 'utf8',
      env: { ...process.env, FAIL_STEP: 'build:fonts' },
    });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('ensure-build: npm run build:fonts failed (exit 3)');
    expect(readFileSync(join(dir, 'ran.log'), 'utf8')).toBe('build:fonts\n');
  });
});
