/** The contract of a benchmark suite; `bench/suites.ts` lists them, `bench/index.ts` runs them. */

/** One measured row. `suite` and `impl` are required; the rest are the suite's own figures. */
export interface BenchResult {
  suite: string;
  impl: string;
  [metric: string]: string | number | boolean | undefined;
}

export interface BenchContext {
  /** `--quick`: fewer iterations, for a smoke run (CI uses it to check the suites still run). */
  quick: boolean;
  /** Progress lines go to stderr so `--json` output stays clean. */
  log(line: string): void;
}

export interface BenchSuite {
  name: string;
  /** Measures side by side in one run; ratios between impls are the figures that matter. */
  run(ctx: BenchContext): Promise<BenchResult[]>;
}
