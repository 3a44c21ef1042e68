import { describe, expect, it } from 'vitest';
import { shed } from '../../src/compaction/shed.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate } from './builder.js';

describe('shed', () => {
  it('keeps the newest K images and replaces older ones with placeholders', () => {
    const b = new Builder();
    b.person('watch the screen');
    const imgs = [b.image(), b.image(1024, 768), b.image()];
    const shot = b.result('c9', 'screenshot', [
      { type: 'text', text: 'took a screenshot' },
      { type: 'image', mediaType: 'image/png', data: 'AAAA', width: 10, height: 10 },
    ]);
    const tokens = b.items.map(() => 1000);
    const r = shed(b.items, tokens, charEstimate, { keepImages: 2 });
    expect(r.report.items).toEqual([imgs[0]!.id, imgs[1]!.id]);
    expect(r.items[1]).toMatchObject({ kind: 'context', author: 'surface', id: imgs[0]!.id });
    expect((r.items[2] as { text: string }).text).toMatch(
      /image shed by glyphfold: image\/png 1024×768, 0 KB, item i3/,
    );
    expect(r.items[3]).toBe(imgs[2]);
    expect(r.items[4]).toBe(shot);
    expect(r.report.tokensAfter).toBeLessThan(r.report.tokensBefore);
  });

  it('sheds images inside tool results and leaves pinned items alone', () => {
    const b = new Builder();
    b.person('go');
    const pinned = { ...b.image(), pinned: true };
    b.items[1] = pinned;
    const shot = b.result('c1', 'screenshot', [
      { type: 'text', text: 'ok' },
      { type: 'image', mediaType: 'image/png', data: 'AAAA' },
    ]);
    b.image();
    // Images cost what a vision model charges for them, far more than their placeholder.
    const withImages = (i: Item): number =>
      i.kind === 'image' || (i.kind === 'tool_result' && i.content.some((p) => p.type === 'image'))
        ? 800
        : charEstimate(i);
    const r = shed(b.items, b.items.map(withImages), withImages, { keepImages: 1 });
    expect(r.report.items).toEqual([shot.id]);
    expect(r.items[2]).toMatchObject({ kind: 'tool_result', content: [{ text: 'ok' }, { type: 'text' }] });
    expect(() => shed(b.items, [], charEstimate, { keepImages: -1 })).toThrow(/keepImages/);
  });

  it('never sheds an image whose placeholder costs more than the image (the request would grow)', () => {
    const b = new Builder();
    b.person('go');
    const tiny = b.image(8, 8);
    b.image();
    // A text-length estimate makes an 8×8 image nearly free and its placeholder dearer.
    const tokens = b.items.map(charEstimate);
    const r = shed(b.items, tokens, charEstimate, { keepImages: 1 });
    expect(r.report.applied).toBe(false);
    expect(r.items[1]).toBe(tiny);
    expect(r.report.tokensAfter).toBe(r.report.tokensBefore);
    // An earlier compaction's shed stays shed whatever it costs: the request keeps its bytes.
    const sticky = shed(b.items, tokens, charEstimate, { keepImages: 1, sticky: new Set([tiny.id]) });
    expect(sticky.report.items).toEqual([tiny.id]);
  });
});
