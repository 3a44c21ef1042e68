/**
 * The page shapes of `glyphfold shapes` (the main models of every provider), each rendered from the
 * same prose: render throughput per shape as a ratio to the first shape, real PNG bytes against the
 * worst-case bound the page-shape search uses, and the billed image tokens for the whole text against
 * its text tokens (4 characters per token): the compression measured with real page fill, where
 * wrapped lines and short paragraphs leave cells empty. A last `providers-coldstart` row times the
 * built module's cold start in fresh processes (see `coldstart.ts`).
 */
import { Bench } from 'tinybench';
import { DEFAULT_SHAPE_MODELS, DEFAULT_TEXT_CHARS_PER_TOKEN } from '../src/cli/shapes.js';
import { bestPageShape, pageBytesMax, resolveProfile } from '../src/providers/index.js';
import { render } from '../src/render/index.js';
import { DEFAULT_DIST, coldStartOnce, summarize, type ColdStartSample } from './coldstart.js';
import { englishProse } from './corpus.js';
import type { BenchResult, BenchSuite } from './suite.js';

export const shapesSuite: BenchSuite = {
  name: 'shapes',
  async run(ctx) {
    const text = englishProse(ctx.quick ? 60_000 : 400_000);
    // One row per distinct shape; the models that share it are listed together.
    const shapes = new Map<
      string,
      {
        models: string[];
        width: number;
        height: number;
        tokens: number;
        profile: ReturnType<typeof resolveProfile>['profile'];
      }
    >();
    for (const model of DEFAULT_SHAPE_MODELS) {
      const { profile } = resolveProfile(model);
      if (!profile.vision) continue;
      const s = bestPageShape(profile);
      const key = `${s.width}x${s.height}@${s.tokens}`;
      const entry = shapes.get(key);
      if (entry) entry.models.push(model);
      else shapes.set(key, { models: [model], width: s.width, height: s.height, tokens: s.tokens, profile });
    }
    const bench = new Bench(ctx.quick ? { time: 50, iterations: 2 } : { time: 2000 });
    for (const [key, s] of shapes) {
      bench.add(key, async () => {
        await render(text, { shape: { width: s.width, height: s.height } });
      });
    }
    await bench.run();
    const rows: BenchResult[] = [];
    let first: number | undefined;
    for (const [key, s] of shapes) {
      const r = bench.getTask(key)?.result;
      if (!r || !('period' in r)) throw new Error(`bench shapes: task ${key} did not complete`);
      const ms = r.period;
      first ??= ms;
      const out = await render(text, { shape: { width: s.width, height: s.height } });
      const bytesPerPage = out.bytes / out.pages.length;
      const imageTokens = out.pages.length * s.tokens;
      const textTokens = out.chars / DEFAULT_TEXT_CHARS_PER_TOKEN;
      ctx.log(`${key} (${s.models.join(', ')}): ${ms.toFixed(1)} ms, ${out.pages.length} pages`);
      rows.push({
        suite: 'shapes',
        impl: `${s.width}x${s.height}`,
        models: s.models.join(' '),
        pages: out.pages.length,
        meanMs: Number(ms.toFixed(2)),
        charsPerSecondM: Number((out.chars / (ms / 1000) / 1e6).toFixed(2)),
        timeVsFirstShape: Number((ms / first).toFixed(2)),
        pngBytesPerPage: Math.round(bytesPerPage),
        pngVsWorstCase: Number(
          (
            bytesPerPage /
            pageBytesMax(
              { ...s.profile, images: { ...s.profile.images, base64Counted: false } },
              s.width,
              s.height,
            )
          ).toFixed(3),
        ),
        tokensPerPage: s.tokens,
        measuredCompression: Number((textTokens / imageTokens).toFixed(2)),
      });
    }
    rows.push(coldStartRow(ctx.quick ? 3 : 15));
    return rows;
  },
};

/** Model of the cold-start row: the serverless default, an Anthropic patch rule. */
const COLD_START_MODEL = 'claude-sonnet-4-6';

/**
 * Medians over `runs` fresh processes of the CPU ms to import `dist/providers`, resolve one id and find
 * its first page shape; `againMs` is a second resolve + shape (memo hits). Machine load shifts the
 * absolute figures; `shapeVsImport` is the ratio to watch.
 */
function coldStartRow(runs: number): BenchResult {
  const samples: ColdStartSample[] = [];
  for (let i = 0; i < runs; i++) samples.push(coldStartOnce(DEFAULT_DIST, [COLD_START_MODEL]));
  const m = summarize(samples);
  return {
    suite: 'shapes',
    impl: 'providers-coldstart',
    models: COLD_START_MODEL,
    runs,
    importMs: m.importMs,
    resolveMs: m.resolveMs,
    shapeMs: m.shapeMs,
    againMs: m.againMs,
    meanMs: m.totalMs,
    shapeVsImport: Number((m.shapeMs / m.importMs).toFixed(2)),
  };
}
