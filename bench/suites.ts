import { compactionSuite } from './compaction.js';
import { DEFLATE_SUITES } from './deflate.js';
import { importSuite } from './import.js';
import { POOL_SUITES } from './pool.js';
import { RENDER_SUITES } from './render.js';
import { shapesSuite } from './shapes.js';
import { storeSuite } from './store.js';
import { storePgSuite } from './store-pg.js';
import type { BenchSuite } from './suite.js';
import { viewsSuite } from './views.js';
import { serverlessSuite } from './serverless.js';
import { rootImportSuite } from './root-import.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [
  ...RENDER_SUITES,
  ...DEFLATE_SUITES,
  ...POOL_SUITES,
  shapesSuite,
  importSuite,
  storeSuite,
  storePgSuite,
  viewsSuite,
  compactionSuite,
  serverlessSuite,
  rootImportSuite,
];
