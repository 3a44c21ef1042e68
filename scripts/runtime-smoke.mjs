/**
 * A smoke test the edge entries must pass on every runtime (Node, Bun, Deno): plain JavaScript that
 * imports the built bundles (dist/bundle/) by file URL, renders a page and decodes it back, imports a
 * transcript, builds a wire body for each provider and serves a request from the serverless handler.
 * Run by scripts/runtimes.mjs under each runtime; prints one line, throws on any failure.
 */
/* global URL, Request */
const base = new URL('../dist/bundle/', import.meta.url);
const load = (entry) => import(new URL(entry, base).href);
const { render, decode, normalize } = await load('render/index.js');
const { importTranscript } = await load('transcript/portable.js');
const { wireView } = await load('views/index.js');
const { estimateTokens } = await load('tokens/index.js');
const { prepareRequest } = await load('compaction/index.js');
const { handler } = await load('serverless/index.js');

const runtime =
  typeof globalThis.Bun !== 'undefined'
    ? `bun ${globalThis.Bun.version}`
    : typeof globalThis.Deno !== 'undefined'
      ? `deno ${globalThis.Deno.version.deno}`
      : `node ${globalThis.process.version}`;
const fail = (what, found) => {
  throw new Error(`${runtime}: ${what} (found ${JSON.stringify(found)?.slice(0, 200)})`);
};

// Render and decode: the same text back, for the default page variant.
const text = `Rendered under ${runtime}.\n\tindented ─ café 😀\n` + 'wrap '.repeat(60);
const { pages } = await render(text, { shape: { width: 504, height: 400 }, variant: 'gf-6x10' });
if (pages.length === 0 || !(pages[0].png instanceof Uint8Array))
  fail('render gave no PNG page', pages.length);
const png = pages[0].png;
if (png[1] !== 0x50 || png[2] !== 0x4e || png[3] !== 0x47) fail('not a PNG signature', [...png.slice(0, 4)]);
const back = decode(
  pages.map((p) => p.png),
  { variant: 'gf-6x10' },
);
if (back !== normalize(text)) fail('decode(render(t)) !== normalize(t)', back);

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

console.log(`${runtime}: render, decode, import, wire views, estimate, compaction, serverless ok`);
