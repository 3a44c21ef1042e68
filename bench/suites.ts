import type { BenchSuite } from './suite.js';
import { storeSuite } from './suites/store.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [storeSuite];
