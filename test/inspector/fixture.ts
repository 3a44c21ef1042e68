/**
 * A workspace for the inspector's tests: one conversation whose main agent has two branches after a
 * checkpoint, a tool call left without its result on the tip's branch (a pairing repair on the wire),
 * and enough tool output for the compaction ladder to elide and snapshot.
 */
import { Workspace } from '../../src/store/index.js';

export interface Fixture {
  /** Last item of the branch that is not the tip. */
  leafA: string;
  tipB: string;
  /** The item both branches grow from (the checkpoint 'read' is there). */
  fork: string;
  items: number;
}

const LOG = (k: number): string =>
  Array.from(
    { length: 60 },
    (_, i) =>
      `src/module${k}/file${i}.ts:${10 + i}: warning: unused variable 'value${i}' in function handler${k}`,
  ).join('\n');

export function buildFixture(dir: string): Fixture {
  const ws = Workspace.open(dir);
  const h = ws.history('c1');
  h.append({ kind: 'message', author: 'person', text: 'Clean up the lint warnings in the repository' });
  h.commit();
  for (let k = 0; k < 12; k++) {
    h.append({
      kind: 'tool_call',
      author: 'model',
      callId: `call_${k}`,
      name: 'Bash',
      input: { command: `npm run lint -- src/module${k}` },
    });
    h.append({
      kind: 'tool_result',
      author: 'machinery',
      callId: `call_${k}`,
      name: 'Bash',
      content: [{ type: 'text', text: LOG(k) }],
    });
    h.append({
      kind: 'message',
      author: 'model',
      text: `Module ${k}: 60 unused variables, fixing them next.`,
    });
    h.commit();
  }
  const fork = h.tip!;
  h.checkpoint('read');
  h.append({ kind: 'message', author: 'person', text: 'Branch A: remove the variables' });
  h.append({ kind: 'message', author: 'model', text: 'A: removed 720 variables.' });
  const leafA = h.commit().at(-1)!.id;
  h.branch(fork);
  h.append({ kind: 'message', author: 'person', text: 'Branch B: prefix them with an underscore' });
  h.append({
    kind: 'tool_call',
    author: 'model',
    callId: 'call_orphan',
    name: 'Bash',
    input: { command: 'sed -i s/value/_value/' },
  });
  h.append({ kind: 'message', author: 'model', text: 'B: renamed them.' });
  const tipB = h.commit().at(-1)!.id;
  const items = h.items().length;
  h.close();
  ws.close();
  return { leafA, tipB, fork, items };
}
