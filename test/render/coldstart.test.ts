import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The modules a static import of `file` evaluates (ESM `import`/`export … from`, not `import()`). */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  if (!file.startsWith('/')) return seen; // a package: recorded, not followed
  const source = readFileSync(file, 'utf8');
  for (const m of source.matchAll(/^\s*(?:import|export)\s+(?:[^'"();]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    const spec = m[1]!;
    staticGraph(spec.startsWith('.') ? resolve(dirname(file), spec) : spec, seen);
  }
  return seen;
}

describe('cold start of glyphfold/render', () => {
  it('statically imports no deflate library: fflate is loaded only on the fflate path', () => {
    const entry = fileURLToPath(new URL('../../dist/render/index.js', import.meta.url));
    expect(existsSync(entry), 'dist/render/index.js is missing: run `npm run build:ts`').toBe(true);
    const graph = staticGraph(entry);
    expect([...graph].some((f) => f.endsWith('/dist/render/decode.js'))).toBe(true); // the walk works
    expect([...graph].filter((f) => !f.startsWith('/'))).toEqual([]);
  });
});
