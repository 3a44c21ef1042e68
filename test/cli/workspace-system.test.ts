/**
 * Issue 12: a transcript imported into a workspace keeps its system prompt (in the new log's header,
 * fixed at creation, surviving reopen and fork), and `view --workspace` / `compact --workspace` send
 * it unless `--system` / `--system-file` replace it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/index.js';
import { MemoryWorkspace } from '../../src/tree/memory.js';
import { runCli } from '../helpers/cli.js';

const ANTHROPIC = 'test/fixtures/transcripts/anthropic.json';
const IMPORTED_SYSTEM = 'You are a research assistant with a browser tool. Cite the pages you used.';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-ws-system-'));
  dirs.push(d);
  return d;
}

async function imported(): Promise<string> {
  const ws = tmp();
  const r = await runCli(['import', ANTHROPIC, '--workspace', ws, '--conversation', 'c1']);
  expect(r.code, r.err).toBe(0);
  expect(r.out).toMatch(/with its system prompt \(\d+ chars\)/);
  return ws;
}

describe('the system prompt of an imported transcript, in a workspace', () => {
  it('is recorded in the history and survives reopen and fork', async () => {
    const dir = await imported();
    const ws = Workspace.open(dir);
    const h = ws.history('c1');
    expect(h.system).toContain(IMPORTED_SYSTEM);
    // Append-only: the log's first line holds it, written once.
    const header = JSON.parse(readFileSync(ws.logPath('c1', 'main'), 'utf8').split('\n')[0]!);
    expect(header.system).toBe(h.system);
    const fork = h.fork({ conversation: 'c2' });
    expect(fork.system).toBe(h.system);
    fork.close();
    h.close();
    ws.close();
    const again = Workspace.open(dir, { readOnly: true });
    expect(again.history('c2', 'main', { readOnly: true }).system).toContain(IMPORTED_SYSTEM);
    again.close();
  });

  it('is fixed at creation: opening the history with another one is an error', () => {
    for (const ws of [Workspace.open(tmp()), new MemoryWorkspace()]) {
      ws.history('c1', 'main', { system: 'Be brief.' }).close();
      const same = ws.history('c1', 'main', { system: 'Be brief.' });
      expect(same.system).toBe('Be brief.');
      same.close();
      expect(() => ws.history('c1', 'main', { system: 'Be long.' })).toThrow(
        /conversation c1 agent main exists and was created with another system prompt \(9 chars\)/,
      );
      expect(() => ws.history('c2', 'main', {}).close()).not.toThrow();
      expect(() => ws.history('c2', 'main', { system: 'x' })).toThrow(/created with no system prompt/);
      ws.close();
    }
  });

  it('is sent by view --workspace unless --system or --system-file replaces it', async () => {
    const ws = await imported();
    const own = await runCli(['view', '--workspace', ws, 'c1', '--provider', 'anthropic']);
    expect(own.code, own.err).toBe(0);
    expect(JSON.stringify(JSON.parse(own.out).system)).toContain(IMPORTED_SYSTEM);
    expect(own.err).toMatch(/system: the history's own \(\d+ chars\)/);
    const chat = await runCli(['view', '--workspace', ws, '--provider', 'openai-chat']);
    expect(JSON.stringify(JSON.parse(chat.out).messages[0])).toContain(IMPORTED_SYSTEM);
    const replaced = await runCli([
      'view',
      '--workspace',
      ws,
      '--provider',
      'anthropic',
      '--system',
      'Be brief.',
    ]);
    expect(JSON.stringify(JSON.parse(replaced.out).system)).not.toContain(IMPORTED_SYSTEM);
    expect(JSON.stringify(JSON.parse(replaced.out).system)).toContain('Be brief.');
  });

  it('is in the request compact --workspace writes; --system-file replaces it', async () => {
    const ws = await imported();
    const out = tmp();
    const own = await runCli([
      'compact',
      '--workspace',
      ws,
      'c1',
      '--model',
      'claude-sonnet-4-5',
      '--out',
      out,
      '--json',
    ]);
    expect(own.code, own.err).toBe(0);
    expect(JSON.parse(own.out)).toMatchObject({ format: 'workspace' });
    expect(JSON.stringify(JSON.parse(readFileSync(join(out, 'request.json'), 'utf8')).system)).toContain(
      IMPORTED_SYSTEM,
    );
    const policy = join(tmp(), 'policy.md');
    writeFileSync(policy, 'Policy: never touch production without a ticket.\n');
    const out2 = tmp();
    const file = await runCli([
      'compact',
      '--workspace',
      ws,
      '--model',
      'claude-sonnet-4-5',
      '--out',
      out2,
      '--system-file',
      policy,
    ]);
    expect(file.code, file.err).toBe(0);
    expect(file.out).toMatch(/conversation c1 agent main/);
    const body = JSON.parse(readFileSync(join(out2, 'request.json'), 'utf8'));
    expect(JSON.stringify(body.system)).toContain('never touch production');
    expect(JSON.stringify(body.system)).not.toContain(IMPORTED_SYSTEM);
    // A FILE and --workspace's CONVERSATION are one positional: two are refused.
    const two = await runCli([
      'compact',
      '--workspace',
      ws,
      'a',
      'b',
      '--model',
      'claude-sonnet-4-5',
      '--out',
      out2,
    ]);
    expect(two.code).toBe(2);
  });
});
