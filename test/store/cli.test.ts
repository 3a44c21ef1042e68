/** `glyphfold import`, `tree` and `reindex`, run through the CLI entry with real files. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/workspace.js';
import { parseJsonl } from '../../src/transcript/jsonl.js';
import { importTranscript } from '../../src/transcript/import/index.js';
import { runCli } from '../helpers/cli.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'transcripts');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gf-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (...argv: string[]) => runCli(argv, { cwd: dir });

describe('glyphfold import / tree / reindex', () => {
  it('imports every fixture format into its own conversation; the same file again is unchanged, a copy refused', async () => {
    for (const file of [
      'claude-code.jsonl',
      'codex.jsonl',
      'openai-chat.json',
      'anthropic.json',
      'glyphfold.jsonl',
    ]) {
      const r = await run('import', join(fixtures, file), '--workspace', 'ws');
      expect(r.code, r.err).toBe(0);
      // A Claude Code session also reports its subagents, branches and checkpoints.
      expect(r.out).toMatch(
        /^imported \d+ items \([a-z-]+\) into conversation [\w.-]+ agent main( \(\d+ agents, .*\))?(, with its system prompt \(\d+ chars\))?\n$/,
      );
    }
    const again = await run('import', join(fixtures, 'anthropic.json'), '--workspace', 'ws');
    expect(again.code, again.err).toBe(0);
    expect(again.out).toMatch(/^unchanged: .*anthropic\.json holds what was imported into conversation /);
    // A copy elsewhere is another source (the ledger goes by path) whose derived conversation exists.
    mkdirSync(join(dir, 'copy'), { recursive: true });
    copyFileSync(join(fixtures, 'anthropic.json'), join(dir, 'copy', 'anthropic.json'));
    const copy = await run('import', join(dir, 'copy', 'anthropic.json'), '--workspace', 'ws');
    expect(copy.code).toBe(1);
    expect(copy.err).toMatch(/already exists/);
    const ws = Workspace.open(join(dir, 'ws'));
    expect(ws.conversations()).toHaveLength(5);
    ws.close();
  });

  it('round-trips an imported path: tree --jsonl prints the same items', async () => {
    const r = await run(
      'import',
      join(fixtures, 'claude-code.jsonl'),
      '--workspace',
      'ws',
      '--conversation',
      'cc',
    );
    expect(r.code, r.err).toBe(0);
    // The whole tree is written; --jsonl prints the active path of one agent.
    const count = importTranscript(readFileSync(join(fixtures, 'claude-code.jsonl'), 'utf8')).items.length;
    expect(Number(/imported (\d+)/.exec(r.out)![1])).toBeGreaterThan(count);
    const out = await run('tree', '--workspace', 'ws', 'cc', '--agent', 'main', '--jsonl');
    expect(out.code, out.err).toBe(0);
    const items = parseJsonl(out.out);
    expect(items).toHaveLength(count);
    expect(items[0]!.parent).toBeNull();
    for (let i = 1; i < items.length; i++) expect(items[i]!.parent).toBe(items[i - 1]!.id);
  });

  it('draws the tree with branches, the tip and checkpoints marked', async () => {
    const ws = Workspace.open(join(dir, 'ws'));
    const h = ws.history('demo');
    const [q] = [h.append({ kind: 'message', author: 'person', text: 'write a poem' })];
    h.commit();
    h.checkpoint('asked');
    h.append({ kind: 'message', author: 'model', text: 'roses are red' });
    h.commit();
    const edited = h.edit(q!.id, { kind: 'message', author: 'person', text: 'write a haiku' });
    h.append({ kind: 'message', author: 'model', text: 'old pond' });
    h.commit();
    h.close();
    ws.close();
    const r = await run('tree', '--workspace', 'ws', 'demo');
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toBe('conversation demo agent main: 4 items, turn 3');
    expect(lines[1]).toMatch(/^\|- it_\w+ t1 person\/message: write a poem {2}\[checkpoint asked\]$/);
    expect(lines[2]).toMatch(/^\| {2}it_\w+ t2 model\/message: roses are red$/);
    expect(lines[3]).toBe(`\`- ${edited.id} t3 person/message: write a haiku`);
    expect(lines[4]).toMatch(/^ {3}it_\w+ t3 model\/message: old pond {2}<- tip$/);
    const list = await run('tree', '--workspace', 'ws');
    expect(list.out).toBe('demo  main (4 items, turn 3)\n');
  });

  it('reindex rebuilds the database and exits 1 on a damaged log', async () => {
    await run('import', join(fixtures, 'anthropic.json'), '--workspace', 'ws', '--conversation', 'a');
    rmSync(join(dir, 'ws', 'workspace.db'));
    rmSync(join(dir, 'ws', 'workspace.db-wal'), { force: true });
    rmSync(join(dir, 'ws', 'workspace.db-shm'), { force: true });
    const r = await run('reindex', '--workspace', 'ws');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^reindexed 1 conversations, 1 histories, \d+ items\n$/);
    expect((await run('tree', '--workspace', 'ws')).out).toMatch(/^a {2}main \(\d+ items, turn \d+\)\n$/);
    const log = join(dir, 'ws', 'logs', 'a', 'main.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('"turn":1', '"turn":2');
    writeFileSync(log, lines.join('\n'));
    const damaged = await run('reindex', '--workspace', 'ws');
    expect(damaged.code).toBe(1);
    expect(damaged.err).toMatch(/^a\/main: chain: line 3: hash chain broken/m);
    const usage = await run('reindex');
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/--workspace DIR is required/);
  });
});
