/**
 * The checks of the runtime smoke test, shared by scripts/runtime-smoke.mjs (Node, Bun, Deno: the
 * bundles loaded by file URL) and scripts/runtime-worker.mjs (workerd: the bundles built into the
 * worker). `m` holds the entries' exports; throws on the first failure naming what was found.
 */
/* global Request, crypto */
export async function runChecks(m, runtime) {
  const { render, decode, normalize, importTranscript, wireView, estimateTokens, prepareRequest, handler } =
    m;
  const fail = (what, found) => {
    throw new Error(`${runtime}: ${what} (found ${JSON.stringify(found)?.slice(0, 200)})`);
  };

  // Render and decode: the same text back, for the default page variant. The WASM engine is required:
  // render() alone falls back to the TS engine where WebAssembly cannot be compiled, which would hide it.
  const text = `Rendered under ${runtime}.\n\tindented ─ café 😀\n` + 'wrap '.repeat(60);
  const shape = { width: 504, height: 400 };
  const { pages } = await render(text, { shape, variant: 'gf-6x10', engine: 'wasm' });
  if (pages.length === 0 || !(pages[0].png instanceof Uint8Array))
    fail('render gave no PNG page', pages.length);
  const png = pages[0].png;
  if (png[1] !== 0x50 || png[2] !== 0x4e || png[3] !== 0x47)
    fail('not a PNG signature', [...png.slice(0, 4)]);
  const back = decode(
    pages.map((p) => p.png),
    { variant: 'gf-6x10' },
  );
  if (back !== normalize(text)) fail('decode(render(t)) !== normalize(t)', back);
  const tsPages = (await render(text, { shape, variant: 'gf-6x10', engine: 'ts' })).pages;
  const tsBack = decode(
    tsPages.map((p) => p.png),
    { variant: 'gf-6x10' },
  );
  if (tsPages.length !== pages.length || tsBack !== back)
    fail('the TS engine differs from the WASM one', tsBack);

  // A transcript (OpenAI Chat shape) → items → every wire body.
  const { items } = importTranscript(
    JSON.stringify([
      { role: 'user', content: 'List the files.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{"dir":"."}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.ts\nb.ts' },
      { role: 'assistant', content: 'Two files: a.ts and b.ts.' },
    ]),
  );
  const request = { model: 'claude-sonnet-4-5', system: 'Be brief.', maxTokens: 256 };
  const anthropic = wireView('anthropic', items, request).body;
  const uses = anthropic.messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_use');
  if (anthropic.messages[0]?.role !== 'user' || uses.length !== 1) fail('anthropic body', anthropic);
  const chat = wireView('openai-chat', items, request).body;
  if (!chat.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'call_1')) fail('chat body', chat);
  const responses = wireView('openai-responses', items, request).body;
  if (!responses.input.some((i) => i.type === 'function_call_output')) fail('responses body', responses);
  const gemini = wireView('gemini', items, request).body;
  if (!gemini.contents.some((c) => c.parts.some((p) => 'functionResponse' in p))) fail('gemini body', gemini);
  const estimate = estimateTokens('anthropic', items, request);
  if (!(estimate.total > 0)) fail('token estimate', estimate.total);
  const prepared = await prepareRequest(items, { model: 'claude-sonnet-4-5', wire: 'anthropic' });
  if (prepared.body.messages.length !== anthropic.messages.length) fail('prepared request', prepared.body);

  // The serverless handler.
  const health = await handler(new Request('http://local/v1/health'));
  if (health.status !== 200) fail('GET /v1/health', health.status);
  const res = await handler(
    new Request('http://local/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello', model: 'claude-sonnet-4-5' }),
    }),
  );
  const json = await res.json();
  if (res.status !== 200 || !(json.pages?.length > 0)) fail('POST /v1/render', json);
  // Snapshot bytes: one fixed text gives the same PNG bytes on every runtime (prompt caches depend on
  // it; docs/renderer.md §5); scripts/runtimes.mjs compares this digest across the runtimes it runs.
  const same = `The same bytes on every runtime.\n\tcafé ─ 😀 \u0007\n${'lorem ipsum dolor sit amet '.repeat(900)}`;
  const all = [];
  // Full pages of varied prose take the deflate codes learnt from the core's sample page (the text
  // above, all repeats, gets a code of its own per page): both paths must agree across runtimes.
  const texts = [same, variedProse(60_000)];
  for (const options of [
    { shape: { width: 504, height: 400 }, variant: 'gf-6x10' },
    { shape: { width: 1568, height: 784 }, cell: '4x6' },
  ]) {
    for (const compression of ['default', 'fastest']) {
      for (const t of texts)
        for (const p of (await render(t, { ...options, compression, engine: 'wasm' })).pages) all.push(p.png);
    }
  }
  const joined = new Uint8Array(all.reduce((n, b) => n + b.length, 0));
  all.reduce((at, b) => (joined.set(b, at), at + b.length), 0);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', joined));
  const digest = [...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${runtime}: render (wasm and ts engines), decode, import, wire views, estimate, compaction, serverless ok; ${all.length} pages sha256 ${digest}`;
}

/** Words in a fixed pseudo-random order (an LCG, seed 7), about `n` characters: prose-like pages. */
export function variedProse(n) {
  const words = (
    'the of and to in a is that for it as was with be by on not he this are or his from at which ' +
    'but have an they you were her she there been one all we their has would when if so no will ' +
    'more can said what out up some time could them about into than only other new page text model'
  ).split(' ');
  let x = 7;
  let out = '';
  while (out.length < n) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += words[(x >>> 16) % words.length] + ((x & 63) === 0 ? '.\n' : ' ');
  }
  return out;
}
