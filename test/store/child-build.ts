/**
 * Child processes in these tests are real `node` processes. Starting each through a TypeScript loader
 * would cost ~0.3 s a spawn (the crash test spawns hundreds), so the sources are transpiled once into a
 * temp dir (type-stripping only, no bundling) and run as plain ESM.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** Transpiles `src/` and `test/store/fixtures/` into a temp dir; returns it and a cleanup function. */
export function buildChildren(): { dir: string; script(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gf-child-'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const root of [join(repo, 'src'), join(repo, 'test', 'store', 'fixtures')]) {
    for (const file of tsFiles(root)) {
      const out = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: true,
        },
        fileName: file,
      });
      const target = join(dir, relative(repo, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, out.outputText);
    }
  }
  return {
    dir,
    script: (name) => join(dir, 'test', 'store', 'fixtures', `${name}.js`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
