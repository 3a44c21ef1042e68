/** Builds linear histories for compaction tests: fresh ids, parent chain, turns. */
import type { ContentPart, Item, NewItem } from '../../src/transcript/items.js';
import { itemText } from '../../src/transcript/items.js';

/** A plain text-length estimate for tests that exercise rung logic, not the tokenizer. */
export const charEstimate = (item: Item): number => Math.ceil(itemText(item).length / 4) + 4;

export class Builder {
  readonly items: Item[] = [];
  turn = 0;
  private seq = 0;

  private add(item: NewItem): Item {
    const id = `i${++this.seq}`;
    const parent = this.items.length ? this.items[this.items.length - 1]!.id : null;
    const full = { ...item, id, parent, turn: this.turn, time: '2026-11-29T00:00:00.000Z' } as Item;
    this.items.push(full);
    return full;
  }

  person(text: string, extra: Partial<NewItem> = {}): Item {
    this.turn++;
    return this.add({ kind: 'message', author: 'person', text, ...extra } as NewItem);
  }

  model(text: string): Item {
    return this.add({ kind: 'message', author: 'model', text });
  }

  call(name: string, input: unknown, callId = `call${this.seq + 1}`): Item {
    return this.add({ kind: 'tool_call', author: 'model', callId, name, input });
  }

  result(
    callId: string,
    name: string,
    content: string | ContentPart[],
    extra: Record<string, unknown> = {},
  ): Item {
    const parts: ContentPart[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    return this.add({
      kind: 'tool_result',
      author: 'machinery',
      callId,
      name,
      content: parts,
      ...extra,
    } as NewItem);
  }

  /** A call and its result in one step; returns the result. */
  tool(name: string, input: unknown, output: string, extra: Record<string, unknown> = {}): Item {
    const call = this.call(name, input) as Item & { callId: string };
    return this.result(call.callId, name, output, extra);
  }

  image(width = 800, height = 600): Item {
    return this.add({
      kind: 'image',
      author: 'machinery',
      mediaType: 'image/png',
      data: 'iVBORw0KGgo=',
      width,
      height,
    });
  }
}

export const filler = (n: number, seed = 'log'): string => {
  const lines: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const line = `${seed} line ${i}: nothing to see here, all quiet ${i * 7}`;
    lines.push(line);
    len += line.length + 1;
  }
  return lines.join('\n').slice(0, n);
};

/**
 * A long session of the shape the policy tests need: a task, then per turn a model plan, a failing test
 * run (a large tool result) and a person's nudge, so there is plenty to elide and image.
 */
export function shardSession(turns: number): Builder {
  const b = new Builder();
  b.person('Task: fix the flaky payment tests. Do not touch the public API.');
  for (let t = 0; t < turns; t++) {
    b.model(`Looking at shard ${t}. ` + filler(1500, `plan${t}`));
    b.tool('bash', { cmd: `npm test -- shard${t}` }, filler(3000, `out${t}`), { isError: true });
    b.person(`Shard ${t}: keep going, and keep the logs.`);
  }
  b.model('Done with the shards.');
  return b;
}
