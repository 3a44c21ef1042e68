/** The benchmark prose lives in src/cli/prose.ts (`glyphfold bench --shapes` uses it too). */
export { englishProse } from '../src/cli/prose.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** About `chars` characters of TypeScript: this repository's own src/ files in path order. */
export function sourceCode(chars: number): string {
  const root = new URL('../src/', import.meta.url).pathname;
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'generated') walk(path);
      } else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  walk(root);
  let out = '';
  while (out.length < chars) for (const f of files) if (out.length < chars) out += readFileSync(f, 'utf8');
  return out.slice(0, chars);
}

/** About `chars` characters of a service log (timestamps, levels, request ids, durations), seeded. */
export function serviceLog(chars: number): string {
  let seed = 0x2545f491;
  const next = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'] as const;
  const routes = ['/v1/messages', '/v1/chat/completions', '/healthz', '/v1/sessions/{id}/events', '/metrics'];
  const events = [
    (r: string) => `request completed route=${r} status=200`,
    (r: string) => `request completed route=${r} status=429 retry_after=2`,
    () => `cache hit key=prefix:${Math.floor(next() * 1e6).toString(16)}`,
    () => `compaction rung=elide removed=${Math.floor(next() * 40)} items`,
    () => `worker ${Math.floor(next() * 8)} picked job ${Math.floor(next() * 1e5)}`,
    () => `slow query table=transcript rows=${Math.floor(next() * 5000)}`,
  ];
  let t = Date.UTC(2026, 10, 30, 9, 0, 0);
  const lines: string[] = [];
  let size = 0;
  while (size < chars) {
    t += Math.floor(next() * 900);
    const id = Math.floor(next() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
    const line =
      `${new Date(t).toISOString()} ${pick(levels).padEnd(5)} [api-${Math.floor(next() * 4)}] req=${id} ` +
      `${pick(events)(pick(routes))} duration_ms=${(next() * 800).toFixed(1)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}
