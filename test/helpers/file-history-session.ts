/**
 * Written for the tests: a Claude Code project folder holding one two-prompt session (`sess-1`) whose
 * second prompt's file-history snapshot names one backup (`src/x.ts`) and one file created later
 * (`src/new.ts`, no backup), with the backup in `<root>/file-history/sess-1/` beside `projects/` —
 * where Claude Code keeps it and where `glyphfold import` looks by default.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The backed-up content of `src/x.ts`, what a restore to the checkpoint puts back. */
export const BACKED_UP = 'export const x = 1;\n';

/** Writes the session under `root`; returns the project folder and the session's working directory. */
export function writeFileHistorySession(root: string): { project: string; cwd: string } {
  const project = join(root, 'projects', '-work-app');
  const backups = join(root, 'file-history', 'sess-1');
  const cwd = join(root, 'app');
  mkdirSync(project, { recursive: true });
  mkdirSync(backups, { recursive: true });
  writeFileSync(join(backups, 'abc123@v1'), BACKED_UP);
  const e = (o: object): string => JSON.stringify({ sessionId: 'sess-1', cwd, ...o });
  const lines = [
    e({
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: 'make x' },
    }),
    e({
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      timestamp: '2026-01-01T00:00:01.000Z',
      message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    }),
    JSON.stringify({
      type: 'file-history-snapshot',
      messageId: 'u2',
      isSnapshotUpdate: false,
      snapshot: {
        messageId: 'u2',
        timestamp: '2026-01-01T00:00:02.000Z',
        trackedFileBackups: {
          'src/x.ts': { backupFileName: 'abc123@v1', version: 1 },
          'src/new.ts': { backupFileName: null, version: 1 },
        },
      },
    }),
    e({
      type: 'user',
      uuid: 'u2',
      parentUuid: 'a1',
      timestamp: '2026-01-01T00:00:02.000Z',
      message: { role: 'user', content: 'now change it' },
    }),
  ];
  writeFileSync(join(project, 'sess-1.jsonl'), lines.join('\n') + '\n');
  return { project, cwd };
}
