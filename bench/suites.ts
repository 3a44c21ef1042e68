import type { BenchSuite } from './suite.js';
import { importSuite } from './import.js';
import { viewsSuite } from './views.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [importSuite, viewsSuite];
