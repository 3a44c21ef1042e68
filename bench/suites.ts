import { RENDER_SUITES } from './render.js';
import type { BenchSuite } from './suite.js';
import { importSuite } from './import.js';
import { serverlessSuite } from './suites/serverless.js';

/** Every suite `npm run bench` knows, in the order they run. */
export const SUITES: readonly BenchSuite[] = [...RENDER_SUITES, importSuite, serverlessSuite];
