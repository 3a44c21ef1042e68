/**
 * The test set of mutation runs (stryker.config.mjs): the whole suite except tests whose code under
 * test runs in another process (CLI, crash, strace, bundle and cold-start tests spawn `node` on dist/
 * or on transpiled sources, where Stryker cannot switch a mutant on, so they could never kill one) and
 * the load and benchmark-like suites, which would only add minutes per mutant.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        'node_modules/**',
        'test/cli/**',
        'test/bench/**',
        'test/probe/**',
        'test/**/*cli.test.ts',
        'test/render/bundle.test.ts',
        'test/render/coldstart.test.ts',
        'test/store/crash.test.ts',
        'test/store/durability.test.ts',
        'test/serverless/load.test.ts',
        'test/serverless/node-adapter.test.ts',
      ],
    },
  }),
);
