/**
 * Item paths shaped like real agent runs, for the view tests: parallel tool calls, tool errors,
 * images in tool results, an empty assistant text with only tool calls, reasoning-only turns,
 * reasoning with each provider's signature, context, summaries and digests.
 */
import { encode } from 'fast-png';
import type { ImageData, Item, NewItem } from '../../src/transcript/items.js';

/** A real PNG (grey gradient) of the given size, base64. */
export function png(width: number, height: number): ImageData {
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 256;
  const bytes = encode({ width, height, data, channels: 1, depth: 8 });
  return { mediaType: 'image/png', data: Buffer.from(bytes).toString('base64'), width, height };
}

/** Builds a linear path: ids p1, p2, … with a parent chain; `turn()` starts a new turn. */
export class PathBuilder {
  readonly items: Item[] = [];
  private turnNo = 1;
  constructor(private readonly prefix = 'p') {}
  turn(): this {
    this.turnNo++;
    return this;
  }
  add(item: NewItem): this {
    const n = this.items.length;
    this.items.push({
      ...item,
      id: `${this.prefix}${n + 1}`,
      parent: n === 0 ? null : this.items[n - 1]!.id,
      turn: this.turnNo,
      time: new Date(Date.UTC(2026, 10, 29, 12, 0, n)).toISOString(),
    } as Item);
    return this;
  }
  person(text: string): this {
    return this.add({ kind: 'message', author: 'person', text });
  }
  model(text: string, signature?: string): this {
    return this.add({ kind: 'message', author: 'model', text, ...(signature ? { signature } : {}) });
  }
  call(callId: string, name: string, input: unknown, signature?: string): this {
    return this.add({
      kind: 'tool_call',
      author: 'model',
      callId,
      name,
      input,
      ...(signature ? { signature } : {}),
    });
  }
  result(
    callId: string,
    name: string,
    text: string,
    extra: { isError?: boolean; images?: ImageData[] } = {},
  ): this {
    return this.add({
      kind: 'tool_result',
      author: 'machinery',
      callId,
      name,
      content: [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...(extra.images ?? []).map((i) => ({ type: 'image' as const, ...i })),
      ],
      ...(extra.isError ? { isError: true } : {}),
    });
  }
}

export const TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  { name: 'screenshot', description: 'Take a screenshot', parameters: { type: 'object', properties: {} } },
  {
    name: 'run',
    description: 'Run a command',
    parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
  },
];

/** A coding-agent run touching every kind and the real-world shapes listed in the issue. */
export function agentRun(family: 'anthropic' | 'openai' | 'gemini' = 'anthropic'): Item[] {
  const b = new PathBuilder();
  b.add({
    kind: 'context',
    author: 'surface',
    text: 'src/app.ts:\nexport const x = 1;',
    source: 'src/app.ts',
  });
  b.person('Fix the failing test and show me the page.');
  // Reasoning with the provider's signature, then an empty assistant text with only (parallel) tool calls.
  if (family === 'anthropic')
    b.add({
      kind: 'reasoning',
      author: 'model',
      text: 'Read both files first.',
      provider: 'anthropic',
      signature: 'sig-A1',
    });
  if (family === 'openai')
    b.add({
      kind: 'reasoning',
      author: 'model',
      text: 'Read both files.',
      provider: 'openai',
      signature: 'rs_001',
      encrypted: 'gAAAAenc001',
    });
  if (family === 'gemini')
    b.add({ kind: 'reasoning', author: 'model', text: 'Reading.', provider: 'gemini' });
  b.model('');
  b.call('call_read_1', 'read_file', { path: 'src/app.ts' }, family === 'gemini' ? 'gsig-call-1' : undefined);
  b.call('call_read_2', 'read_file', { path: 'test/app.test.ts' });
  b.result('call_read_1', 'read_file', 'export const x = 1;');
  b.result('call_read_2', 'read_file', 'ENOENT: no such file', { isError: true });
  b.turn();
  // Reasoning-only turn (a redacted block for Anthropic), then a tool whose result carries an image.
  if (family === 'anthropic')
    b.add({
      kind: 'reasoning',
      author: 'model',
      text: '',
      provider: 'anthropic',
      encrypted: 'redacted-blob',
    });
  else if (family === 'openai')
    b.add({
      kind: 'reasoning',
      author: 'model',
      text: '',
      provider: 'openai',
      signature: 'rs_002',
      encrypted: 'gAAAAenc002',
    });
  else
    b.add({ kind: 'reasoning', author: 'model', text: '', provider: 'gemini', signature: 'gsig-thought-2' });
  b.person('The test file moved to spec/. Also, here is what I see:');
  b.add({ kind: 'image', author: 'person', ...png(56, 28), text: 'my screen' });
  b.turn();
  b.model('Taking a screenshot.', family === 'gemini' ? 'gsig-text-3' : undefined);
  b.call('call_shot', 'screenshot', {});
  b.result('call_shot', 'screenshot', 'captured', { images: [png(84, 56)] });
  b.call('call_run', 'run', { cmd: 'npm test' });
  b.result('call_run', 'run', 'Error: exit 1', { isError: true });
  b.add({
    kind: 'summary',
    author: 'machinery',
    text: 'Earlier: the person asked for a fix.',
    covers: { from: 'p1', to: 'p4' },
  });
  b.add({
    kind: 'digest',
    author: 'machinery',
    text: 'Tried editing app.ts; reverted.',
    checkpoint: 'before-edit',
  });
  b.add({
    kind: 'compaction',
    author: 'machinery',
    rung: 'elide',
    range: { from: 'p5', to: 'p7' },
    params: { kept: 0 },
  });
  b.model('The test fails because the file moved. Fixed.');
  b.turn();
  b.person('Thanks. Anything else?');
  return b.items;
}
