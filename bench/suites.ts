import { compactionSuite } from './compaction.js';
import { importSuite } from './import.js';
import { RENDER_SUITES } from './render.js';
import { shapesSuite } from './shapes.js';
import { storeSuite } from './store.js';
import type { BenchSuite } from './suite.js';
import { viewsSuite } from './views.js';
import { serverlessSuite } from './serverless.js';
import { rootImportSuite } from './root-import.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [
  ...RENDER_SUITES,
  shapesSuite,
  importSuite,
  storeSuite,
  viewsSuite,
  compactionSuite,
  serverlessSuite,
  rootImportSuite,
];
