import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Workspace } from '../../src/store/workspace.js';
import { historyConformance } from '../tree/history.case.js';

historyConformance('workspace (JSONL + SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gf-ws-'));
  return {
    create: () => Workspace.open(dir),
    reopen: () => Workspace.open(dir),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
});

// The same suite with no item kept in memory: every item the tree hands out is read back from the log
// (offset, length, hash), so the lazy path is held to exactly what the in-memory one does.
historyConformance('workspace (JSONL + SQLite), items read back from the log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gf-ws-lazy-'));
  return {
    create: () => Workspace.open(dir, { retainBytes: 0 }),
    reopen: () => Workspace.open(dir, { retainBytes: 0 }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
});
