/** The extractive digest of an abandoned stretch: tool calls made, files touched, last model text. Pure. */
import type { Item } from '../transcript/items.js';

const LAST_TEXT_CHARS = 600;

export function extractiveDigest(label: string, abandoned: readonly Item[]): string {
  const lines = [
    `Rewound to checkpoint "${label}". Abandoned ${abandoned.length} item${abandoned.length === 1 ? '' : 's'}.`,
  ];
  const calls = abandoned.filter((i) => i.kind === 'tool_call');
  if (calls.length > 0) {
    const counts = new Map<string, number>();
    for (const c of calls) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
    lines.push(
      'Tool calls made: ' + [...counts].map(([name, k]) => (k > 1 ? `${name} ×${k}` : name)).join(', ') + '.',
    );
  }
  const files = new Set<string>();
  for (const i of abandoned) if (i.kind === 'tool_result') for (const f of i.files ?? []) files.add(f);
  if (files.size > 0) lines.push('Files touched: ' + [...files].join(', ') + '.');
  const lastModel = [...abandoned].reverse().find((i) => i.kind === 'message' && i.author === 'model');
  if (lastModel && lastModel.kind === 'message') {
    const text =
      lastModel.text.length > LAST_TEXT_CHARS
        ? lastModel.text.slice(0, LAST_TEXT_CHARS) + '…'
        : lastModel.text;
    lines.push(`Last model text: ${text}`);
  }
  return lines.join('\n');
}
