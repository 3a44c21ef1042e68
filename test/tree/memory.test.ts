import { MemoryWorkspace } from '../../src/tree/memory.js';
import { historyConformance } from './history.case.js';

historyConformance('memory (reference)', () => {
  let ws: MemoryWorkspace | undefined;
  return {
    create: () => (ws = new MemoryWorkspace()),
    reopen: () => ws!,
    cleanup: () => {},
  };
});
