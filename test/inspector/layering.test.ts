/**
 * The inspector sits outside the library: `import 'glyphfold'` must not reach it, and nothing but the
 * two CLI commands that serve it (loading it on demand) imports it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the inspector layer', () => {
  it('is not reachable from the root import', () => {
    const seen = new Set<string>();
    const todo = [join(SRC, 'index.ts')];
    while (todo.length > 0) {
      const f = todo.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      todo.push(...importsOf(f));
    }
    expect(seen.size).toBeGreaterThan(50);
    expect([...seen].filter((f) => f.startsWith(join(SRC, 'inspector')))).toEqual([]);
  });

  it('is imported only by the commands that serve it', () => {
    const importers = files(SRC)
      .filter((f) => !f.startsWith(join(SRC, 'inspector')))
      .filter((f) => importsOf(f).some((i) => i.startsWith(join(SRC, 'inspector'))))
      .map((f) => relative(SRC, f));
    expect(importers.sort()).toEqual(['cli/inspect.ts', 'cli/serve.ts']);
  });
});
