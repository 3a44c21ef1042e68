/**
 * The test set of mutation runs (stryker.config.mjs): the tests written against the core modules and
 * their immediate callers. Left out: tests whose code under test runs in another process (CLI, crash,
 * the strace of a child in durability.test.ts, bundle, cold start — Stryker cannot switch a mutant on
 * there, so they could never kill one; logfile.test.ts attaches strace to the test process instead),
 * and the broad property and pixel suites (render round trips, WASM, fonts, compaction invariants)
 * that reach these modules only in passing: with them a run over the core modules took hours on 2
 * cores, because every surviving mutant re-runs every test that reaches it.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Not mergeConfig: it would append this include list to the base one (the whole suite).
export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/views/pairing.test.ts',
      'test/views/pairing-quick.test.ts',
      'test/views/pairing-details.test.ts',
      'test/views/wire.test.ts',
      'test/compaction/snapshot.test.ts',
      'test/compaction/snapshot-limits.test.ts',
      'test/compaction/snapshot-units.test.ts',
      'test/compaction/rungs.test.ts',
      'test/compaction/rung-alone.test.ts',
      'test/compaction/rung-limits.test.ts',
      'test/compaction/ladder.test.ts',
      'test/compaction/ladder-report.test.ts',
      'test/compaction/reused-ids.test.ts',
      'test/compaction/policy.test.ts',
      'test/store/integrity.test.ts',
      'test/store/reindex.test.ts',
      'test/store/lock.test.ts',
      'test/store/lock-unit.test.ts',
      'test/store/workspace.conformance.test.ts',
      'test/store/workspace-index.test.ts',
      'test/store/lazy-items.test.ts',
      'test/store/workspace-edges.test.ts',
      'test/adversarial/write-failure.test.ts',
      'test/adversarial/damage.test.ts',
      'test/store/logfile.test.ts',
      'test/render/decode.test.ts',
      'test/render/png.test.ts',
      'test/render/inflate.test.ts',
      'test/providers/image-tokens.test.ts',
      'test/providers/image-tokens-boundaries.test.ts',
      'test/serverless/handler.test.ts',
      'test/serverless/limits.test.ts',
      'test/serverless/edge-safe.test.ts',
      'test/render/roundtrip.test.ts',
    ],
  },
});
