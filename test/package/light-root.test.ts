/**
 * `import 'glyphfold'` loads no native module and no SDK: a child process imports the root with
 * better-sqlite3 and both SDKs made unresolvable (a resolve hook throws for them) and reports the
 * shared objects it loaded. Opening a workspace in the same kind of child does load the native module:
 * the check can fail.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'glyphfold-light-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAVY = ['better-sqlite3', '@anthropic-ai/sdk', 'openai'];
const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `const heavy = ${JSON.stringify(HEAVY)};
export async function resolve(specifier, context, next) {
  if (heavy.includes(specifier)) throw new Error('forbidden import: ' + specifier);
  return next(specifier, context);
}
`,
);

interface Report {
  ok: boolean;
  error?: string;
  native: string[];
  exports: number;
}

/** Runs `body` (an async function body) in a child whose cwd is the package, with the hooks on. */
function child(body: string, block = true): Report {
  const script = `
import { register, createRequire } from 'node:module';
${block ? `register(${JSON.stringify(pathToFileURL(hooks).href)});` : ''}
const out = { ok: true, native: [], exports: 0 };
try {
  ${body}
} catch (err) {
  out.ok = false;
  out.error = String(err);
}
out.native = process.report.getReport().sharedObjects.filter((f) => f.endsWith('.node'));
console.log(JSON.stringify(out));
`;
  // The script imports the package by name, which resolves from inside the package's own folder
  // (package self-reference through `exports`): it is written to dist/, which is built, not tracked.
  const file = join(root, 'dist', `.light-root-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script);
  try {
    return JSON.parse(execFileSync(process.execPath, [file], { cwd: root, encoding: 'utf8' })) as Report;
  } finally {
    rmSync(file, { force: true });
  }
}

const registerHooks = join(dir, 'register.mjs');
writeFileSync(
  registerHooks,
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
);

describe('the CLI without the optional SDKs or the store', () => {
  it('starts, prints its version and renders', () => {
    const cli = join(root, 'dist', 'cli', 'main.js');
    const node = (args: string[], input?: string) =>
      execFileSync(process.execPath, ['--import', registerHooks, cli, ...args], {
        cwd: dir,
        encoding: 'utf8',
        ...(input !== undefined ? { input } : {}),
      });
    expect(node(['--version']).trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(node(['render', '-', '--shape', '400x120', '--out', join(dir, 'pages')], 'hello')).toMatch(/page/);
  });
});

describe("import 'glyphfold'", () => {
  it('loads no native module and neither SDK', () => {
    const r = child(`const m = await import('glyphfold'); out.exports = Object.keys(m).length;`);
    expect(r.error).toBeUndefined();
    expect(r.ok).toBe(true);
    expect(r.exports).toBeGreaterThan(100);
    expect(r.native).toEqual([]);
  });

  it('the edge subpaths load neither either', () => {
    const r = child(
      `for (const s of ['views', 'compaction', 'transcript', 'tokens', 'render', 'providers']) await import('glyphfold/' + s);`,
    );
    expect(r.error).toBeUndefined();
    expect(r.native).toEqual([]);
  });

  it('the hook is real: the SDK it forbids cannot be imported', () => {
    const r = child(`await import('openai');`);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/forbidden import: openai/);
  });

  it('opening a history loads better-sqlite3 then, and only then', () => {
    const ws = join(dir, 'ws');
    const r = child(
      `const { Workspace } = await import('glyphfold');
       const before = process.report.getReport().sharedObjects.filter((f) => f.endsWith('.node')).length;
       if (before !== 0) throw new Error('native module loaded at import');
       const w = Workspace.open(${JSON.stringify(ws)}); // the database opens with the first history
       w.history('c-1').close();
       w.close();`,
      false,
    );
    expect(r.error).toBeUndefined();
    expect(r.native.some((f) => /better_sqlite3\.node$/.test(f))).toBe(true);
  });
});
