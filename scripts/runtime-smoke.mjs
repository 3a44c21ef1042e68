/**
 * A smoke test the edge entries must pass on every runtime (Node, Bun, Deno): plain JavaScript that
 * imports the built bundles (dist/bundle/) by file URL and runs the checks of scripts/runtime-checks.mjs
 * (render and decode, transcript import, a wire body for each provider, an estimate, compaction, the
 * serverless handler). Run by scripts/runtimes.mjs under each runtime; prints one line, throws on any
 * failure. workerd runs the same checks from scripts/runtime-worker.mjs.
 */
/* global URL */
import { runChecks } from './runtime-checks.mjs';

const base = new URL('../dist/bundle/', import.meta.url);
const load = (entry) => import(new URL(entry, base).href);
const { render, decode, normalize } = await load('render/index.js');
const { importTranscript } = await load('transcript/portable.js');
const { wireView } = await load('views/index.js');
const { estimateTokens } = await load('tokens/index.js');
const { prepareRequest } = await load('compaction/index.js');
const { handler } = await load('serverless/index.js');
const m = { render, decode, normalize, importTranscript, wireView, estimateTokens, prepareRequest, handler };

const runtime =
  typeof globalThis.Bun !== 'undefined'
    ? `bun ${globalThis.Bun.version}`
    : typeof globalThis.Deno !== 'undefined'
      ? `deno ${globalThis.Deno.version.deno}`
      : `node ${globalThis.process.version}`;
console.log(await runChecks(m, runtime));
