/** The `glyphfold` CLI as a real process under hostile conditions: a reader that closes the pipe early. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('EPIPE on stdout', () => {
  it('`glyphfold tree … | head` ends quietly with status 0 when the reader goes away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-epipe-'));
    dirs.push(dir);
    const ws = Workspace.open(dir);
    const h = ws.history('long');
    // ~300 KB of tree output: far more than a pipe buffer holds.
    for (let i = 0; i < 3000; i++)
      h.append({ kind: 'message', author: 'person', text: `message ${i} ${'y'.repeat(80)}` });
    h.commit();
    h.close();
    ws.close();

    for (const args of [
      ['tree', '--workspace', dir, 'long'],
      ['tree', '--workspace', dir, 'long', '--jsonl'],
    ]) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (c: string) => (err += c));
      // `head -1`: read one chunk, then close the read end of the pipe.
      child.stdout.once('data', () => child.stdout.destroy());
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      expect({ code, signal, err }).toEqual({ code: 0, signal: null, err: '' });
    }
  });
});
