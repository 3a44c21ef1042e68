import { describe, expect, it } from 'vitest';
import { formatItems, itemBody, toolInputText } from '../../src/compaction/text.js';
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
        'path: a.ts',
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

  it('keeps every item header on a line of its own at column 0, findable among tool inputs', () => {
    const b = new Builder();
    b.person('Write the patch.');
    // A patch whose lines look like headers; inside a tool input they are indented, never at column 0.
    b.tool('apply_patch', { patch: '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n' }, 'ok');
    b.tool('raw', '--- model call fake [x] ---\nsecond line', 'ok');
    const text = formatItems(b.items);
    const headers = text.split('\n').filter((l) => l.startsWith('--- '));
    expect(headers).toEqual([
      '--- person (turn 1) ---',
      '--- model call apply_patch [call2] ---',
      '--- result apply_patch [call2] ---',
      '--- model call raw [call4] ---',
      '--- result raw [call4] ---',
    ]);
  });
});

describe('toolInputText: tool-call inputs laid out for a reader', () => {
  const file = [
    'import { a } from "./a.js";',
    '',
    'export function f(x) {',
    '\treturn a(x) + "\\n";',
    '}',
    '',
  ].join('\n');

  it('shows a written file as the file: its lines, indented under the key', () => {
    const text = toolInputText({ file_path: '/repo/src/f.ts', content: file });
    expect(text).toBe(
      [
        'content:',
        '  import { a } from "./a.js";',
        '',
        '  export function f(x) {',
        '  \treturn a(x) + "\\n";',
        '  }',
        '',
        'file_path: /repo/src/f.ts',
      ].join('\n'),
    );
    // No JSON escapes of the file's line breaks.
    expect(text).not.toContain('\\nexport');
  });

  it('lays out an Edit call: both strings as blocks, scalars as JSON, in sorted key order', () => {
    const text = toolInputText({
      replace_all: false,
      old_string: 'const a = 1;\nconst b = 2;',
      new_string: 'const a = 1;\nconst b = 3;',
      file_path: 'src/x.ts',
      limit: 20,
      note: null,
    });
    expect(text).toBe(
      [
        'file_path: src/x.ts',
        'limit: 20',
        'new_string:',
        '  const a = 1;',
        '  const b = 3;',
        'note: null',
        'old_string:',
        '  const a = 1;',
        '  const b = 2;',
        'replace_all: false',
      ].join('\n'),
    );
  });

  it('gives the same bytes whatever the key order of the record', () => {
    const a = { z: 1, a: { y: [1, 2, { q: 'x\ny', p: 'p' }], b: 'two' }, m: 'multi\nline' };
    const b = { m: 'multi\nline', a: { b: 'two', y: [1, 2, { p: 'p', q: 'x\ny' }] }, z: 1 };
    expect(toolInputText(a)).toBe(toolInputText(b));
    expect(toolInputText(JSON.parse(JSON.stringify(b)))).toBe(toolInputText(a));
  });

  it('keeps short nested values as compact JSON and lays out long or multi-line ones', () => {
    expect(toolInputText({ opts: { timeout: 120, cwd: '/tmp' }, ids: [3, 1] })).toBe(
      ['ids: [3,1]', 'opts: {"cwd":"/tmp","timeout":120}'].join('\n'),
    );
    const edits = [
      { old_string: 'a\nb', new_string: 'c' },
      { old_string: 'x', new_string: 'y' },
    ];
    expect(toolInputText({ edits, path: 'f' })).toBe(
      [
        'edits:',
        '  - new_string: c',
        '    old_string:',
        '      a',
        '      b',
        '  - {"new_string":"y","old_string":"x"}',
        'path: f',
      ].join('\n'),
    );
    const files = Array.from({ length: 12 }, (_, i) => `src/module-${i}.ts`);
    expect(toolInputText({ files }).split('\n')).toEqual(['files:', ...files.map((f) => `  - ${f}`)]);
    expect(toolInputText({ rows: [['a\nb', 'c'], []] })).toBe(
      ['rows:', '  - - a', '      b', '    - c', '  - []'].join('\n'),
    );
  });

  it('quotes strings that would not read right bare', () => {
    expect(
      toolInputText({ empty: '', nl: '\n', blank: '\n\n  \n', pad: ' x ', tab: 'a\tb', ctl: 'a\u0007b' }),
    ).toBe(
      ['blank: "\\n\\n  \\n"', 'ctl: "a\\u0007b"', 'empty: ""', 'nl: "\\n"', 'pad: " x "', 'tab: a\tb'].join(
        '\n',
      ),
    );
    expect(toolInputText({ 'a key': 1, '': 2, '-x': 3, 'ok-key': 4 })).toBe(
      ['"": 2', '"-x": 3', '"a key": 1', 'ok-key: 4'].join('\n'),
    );
  });

  it('never throws on odd inputs', () => {
    expect(toolInputText(null)).toBe('null');
    expect(toolInputText(undefined)).toBe('null');
    expect(toolInputText({})).toBe('{}');
    expect(toolInputText([])).toBe('[]');
    expect(toolInputText('')).toBe('""');
    expect(toolInputText('\n')).toBe('"\\n"');
    expect(toolInputText('ls -la')).toBe('ls -la');
    expect(toolInputText('line 1\nline 2')).toBe('  line 1\n  line 2');
    expect(toolInputText(42)).toBe('42');
    expect(toolInputText([1, 'a'])).toBe('  - 1\n  - a');
    expect(toolInputText({ n: NaN, i: -Infinity, big: 10n, f: () => 1, u: undefined })).toBe(
      ['big: 10n', 'f: (function)', 'i: -Infinity', 'n: NaN'].join('\n'),
    );
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    expect(toolInputText(cyclic)).toBe(['name: loop', 'self: (circular)'].join('\n'));
    const list: unknown[] = [1];
    list.push(list);
    expect(toolInputText({ list })).toBe(['list:', '  - 1', '  - (circular)'].join('\n'));
    expect(toolInputText({ deep: { a: { b: { c: 'x\ny' } } } })).toBe(
      ['deep:', '  a:', '    b:', '      c:', '        x', '        y'].join('\n'),
    );
  });

  it('is what itemBody draws for a tool call', () => {
    const b = new Builder();
    const call = b.call('Write', { file_path: 'f.py', content: 'print(1)\nprint(2)\n' });
    expect(itemBody(call)).toBe(['content:', '  print(1)', '  print(2)', '', 'file_path: f.py'].join('\n'));
  });
});
