/**
 * The serverless entry must run on edge runtimes: nothing it can load — statically or on first use —
 * may import a Node-only module. Lint checks the files under src/serverless; this walks the whole
 * import graph from the entry, including the transcript modules it imports lazily.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const NODE_ONLY = new Set([...builtinModules, 'better-sqlite3']);
const SPECIFIER =
  /(?:import|export)\s*(?:type\s+)?(?:[^'"]*?from\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function graph(entry: string): { files: string[]; external: Map<string, string> } {
  const seen = new Set<string>();
  const external = new Map<string, string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(SPECIFIER)) {
      if (/^\s*import\s+type\b/.test(m[0]) || /^\s*export\s+type\b/.test(m[0])) continue;
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('.')) stack.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!spec.endsWith('.json')) external.set(spec, file);
    }
  }
  return { files: [...seen], external };
}

it('nothing reachable from glyphfold/serverless imports a Node-only module', () => {
  const { files, external } = graph(join(process.cwd(), 'src/serverless/index.ts'));
  expect(files.length).toBeGreaterThan(10);
  expect(files.some((f) => f.includes('transcript/import'))).toBe(true);
  const nodeOnly = [...external].filter(
    ([spec]) => spec.startsWith('node:') || NODE_ONLY.has(spec.split('/')[0]!),
  );
  expect(nodeOnly.map(([spec, file]) => `${spec} (from ${file.slice(process.cwd().length + 1)})`)).toEqual(
    [],
  );
});
