import type { BenchSuite } from './suite.js';
import { importSuite } from './import.js';
import { shapesSuite } from './shapes.js';
import { storeSuite } from './suites/store.js';
import { viewsSuite } from './views.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [importSuite, storeSuite, shapesSuite, viewsSuite];
