/** Small shared pieces: the token bar chart and a virtualized list. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { TokenRow } from './api.js';

/** Tokens by author and kind as horizontal bars (like `/context`), largest first. */
export function TokenBars(props: { rows: TokenRow[]; scale?: number; testid?: string }) {
  const max = props.scale ?? Math.max(1, ...props.rows.map((r) => r.tokens));
  return (
    <table class="bars" data-testid={props.testid ?? 'token-bars'}>
      <tbody>
        {props.rows.map((r) => (
          <tr key={`${r.author}/${r.kind}`}>
            <td class="bar-label">
              {r.author}/{r.kind}
            </td>
            <td class="bar-cell">
              <div
                class={`bar a-${r.author}`}
                ref={(el) => {
                  // Set through the CSSOM: the strict CSP refuses style attributes in markup.
                  if (el) el.style.width = `${(100 * r.tokens) / max}%`;
                }}
              />
            </td>
            <td class="num">{r.tokens.toLocaleString('en')}</td>
            <td class="num dim">{r.items} items</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A list of `total` fixed-height rows of which only the visible ones are in the DOM; `load` is asked
 * for the pages it lacks. Keeps a 100k-row tree as light as a 50-row one.
 */
export function VirtualList<T>(props: {
  total: number;
  rowHeight: number;
  page: number;
  load: (offset: number) => Promise<T[]>;
  /** Bumped to drop what was loaded (after a change). */
  version: number;
  render: (row: T, index: number) => ComponentChildren;
  scrollTo?: number | undefined;
  testid?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const pages = useRef(new Map<number, T[]>());
  const loading = useRef(new Set<number>());
  const [, redraw] = useState(0);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  useEffect(() => {
    pages.current = new Map();
    loading.current = new Set();
    redraw((n) => n + 1);
  }, [props.version]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    setHeight(el.clientHeight || 600);
    if (props.scrollTo !== undefined && props.scrollTo >= 0) {
      const y = props.scrollTo * props.rowHeight;
      if (y < el.scrollTop || y > el.scrollTop + el.clientHeight - props.rowHeight)
        el.scrollTop = Math.max(0, y - el.clientHeight / 3);
      setTop(el.scrollTop);
    }
  }, [props.scrollTo, props.total]);
  const first = Math.max(0, Math.floor(top / props.rowHeight) - 10);
  const last = Math.min(props.total, Math.ceil((top + height) / props.rowHeight) + 10);
  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    const p = Math.floor(i / props.page);
    const page = pages.current.get(p);
    if (!page) {
      if (!loading.current.has(p)) {
        loading.current.add(p);
        const map = pages.current;
        void props.load(p * props.page).then((got) => {
          if (map !== pages.current) return; // loaded before a change: dropped
          map.set(p, got);
          loading.current.delete(p);
          redraw((n) => n + 1);
        });
      }
      continue;
    }
    const row = page[i - p * props.page];
    if (row === undefined) continue;
    rows.push(
      <div
        class="vrow"
        key={i}
        ref={(el) => {
          if (el) el.style.top = `${i * props.rowHeight}px`;
        }}
      >
        {props.render(row, i)}
      </div>,
    );
  }
  return (
    <div
      class="vlist"
      ref={box}
      data-testid={props.testid}
      onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
    >
      <div
        class="vspace"
        ref={(el) => {
          if (el) el.style.height = `${props.total * props.rowHeight}px`;
        }}
      >
        {rows}
      </div>
    </div>
  );
}
