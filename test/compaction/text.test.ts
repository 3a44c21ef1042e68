import { describe, expect, it } from 'vitest';
import { formatItems } from '../../src/compaction/text.js';
import { Builder } from './builder.js';

describe('formatItems', () => {
  it('renders a deterministic plain transcript with headers', () => {
    const b = new Builder();
    b.person('Fix it.');
    b.tool('read_file', { path: 'a.ts' }, 'const a = 1;', { files: ['a.ts'] });
    b.model('Done.');
    b.result('zz', 'shot', [{ type: 'image', mediaType: 'image/png', data: '', width: 3, height: 4 }], {
      isError: true,
    });
    const text = formatItems(b.items);
    expect(text).toBe(
      [
        '--- person (turn 1) ---',
        'Fix it.',
        '--- model call read_file [call2] ---',
        '{"path":"a.ts"}',
        '--- result read_file [call2] ---',
        'const a = 1;',
        'files: a.ts',
        '--- model (turn 1) ---',
        'Done.',
        '--- error from shot [zz] ---',
        '[image image/png 3x4]',
      ].join('\n'),
    );
    expect(formatItems(b.items)).toBe(text);
  });
});
