import { compactionSuite } from './suites/compaction.js';
import { RENDER_SUITES } from './render.js';
import type { BenchSuite } from './suite.js';
import { importSuite } from './import.js';
import { viewsSuite } from './views.js';
import { shapesSuite } from './shapes.js';
import { storeSuite } from './suites/store.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [
  ...RENDER_SUITES,
  importSuite,
  storeSuite,
  shapesSuite,
  viewsSuite,
  compactionSuite,
];
