/**
 * The runtime smoke test as a Workers module (ES module worker), run under workerd by
 * scripts/runtimes.mjs: esbuild bundles this file with the edge bundles it imports (dist/bundle/) into
 * one module; any request runs the checks (`?runtime=` names the runtime in the result) and answers JSON `{ ok, runtime, result | error }`.
 * workerd refuses to compile WebAssembly from bytes ("Wasm code generation disallowed by embedder"), so
 * the core comes in as a `wasm` module of the config (build/glyphfold.wasm, `glyphfold/glyphfold.wasm`)
 * and is handed to the renderer with useWasmModule.
 */
/* global Response, URL, navigator */
import core from 'glyphfold.wasm';
import { render, decode, normalize, useWasmModule } from '../dist/bundle/render/index.js';
import { importTranscript } from '../dist/bundle/transcript/portable.js';
import { wireView } from '../dist/bundle/views/index.js';
import { estimateTokens } from '../dist/bundle/tokens/index.js';
import { prepareRequest } from '../dist/bundle/compaction/index.js';
import { handler } from '../dist/bundle/serverless/index.js';
import { runChecks } from './runtime-checks.mjs';

useWasmModule(core);
const m = { render, decode, normalize, importTranscript, wireView, estimateTokens, prepareRequest, handler };

export default {
  async fetch(request) {
    // The workerd version comes from scripts/runtimes.mjs (`workerd --version`): a worker cannot see it.
    const label = new URL(request.url).searchParams.get('runtime') ?? 'workerd';
    const runtime = `${label} (${navigator.userAgent})`;
    try {
      return Response.json({ ok: true, runtime, result: await runChecks(m, runtime) });
    } catch (err) {
      return Response.json(
        {
          ok: false,
          runtime,
          error: `${String(err?.stack ?? err)}\ncause: ${String(err?.cause?.stack ?? err?.cause)}`,
        },
        { status: 500 },
      );
    }
  },
};
