import type { BenchSuite } from './suite.js';
import { viewsSuite } from './views.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [viewsSuite];
