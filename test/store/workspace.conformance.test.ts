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
