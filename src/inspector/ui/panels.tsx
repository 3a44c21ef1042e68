/** Screen vs wire, and the compaction preview with its snapshot pages beside their text. */
import { useEffect, useState } from 'preact/hooks';
import { get, post, type PathRow, type TokenRow } from './api.js';
import { TokenBars, VirtualList } from './parts.js';

const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];

interface Repair {
  kind: string;
  itemId?: string;
  callId?: string;
  detail: string;
}
interface ViewsResult {
  provider: string;
  model: string;
  screen: {
    bubbles: {
      id: string;
      who: string;
      text: string;
      images: unknown[];
      hiddenBefore: Record<string, number>;
    }[];
    hidden: Record<string, number>;
  };
  wire: Record<string, unknown> | null;
  /** All bubbles and wire entries of the path (the answer holds the newest few hundred). */
  bubbles?: number;
  wireEntries?: number;
  repairs: Repair[];
  tokens: { total: number; window: number; rows: TokenRow[] } | null;
}

const hiddenText = (h: Record<string, number>): string =>
  Object.entries(h)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');

/** The messages (or input items, or contents) array of a wire body. */
function wireEntries(body: Record<string, unknown>): { key: string; entries: unknown[] } {
  for (const key of ['messages', 'input', 'contents'])
    if (Array.isArray(body[key])) return { key, entries: body[key] as unknown[] };
  return { key: '', entries: [] };
}

export function Views(props: { api: string; at: string | null }) {
  const [provider, setProvider] = useState('anthropic');
  const [model, setModel] = useState('');
  const [data, setData] = useState<ViewsResult | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setData(null);
    get<ViewsResult>(`${props.api}/views`, { at: props.at, provider, model }).then(
      (r) => {
        setData(r);
        setError('');
      },
      (e: Error) => setError(e.message),
    );
  }, [props.api, props.at, provider, model]);
  const repaired = new Set(
    (data?.repairs ?? []).flatMap((r) => [r.itemId, r.callId].filter(Boolean) as string[]),
  );
  const wire = data?.wire ? wireEntries(data.wire) : { key: '', entries: [] };
  return (
    <div class="views">
      <div class="row">
        <label>
          provider{' '}
          <select
            data-testid="provider"
            value={provider}
            onChange={(e) => setProvider((e.currentTarget as HTMLSelectElement).value)}
          >
            {PROVIDERS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>{' '}
        <label>
          model{' '}
          <input
            placeholder={data?.model ?? 'default'}
            value={model}
            onChange={(e) => setModel((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
      </div>
      {error && <p class="error">{error}</p>}
      {data?.tokens && (
        <div class="tokens">
          <b data-testid="token-total">
            {data.tokens.total.toLocaleString('en')} of {data.tokens.window.toLocaleString('en')} tokens (
            {((100 * data.tokens.total) / data.tokens.window).toFixed(1)}%)
          </b>
          <TokenBars rows={data.tokens.rows} />
        </div>
      )}
      {data && data.repairs.length > 0 && (
        <div class="repairs" data-testid="repairs">
          <b>{data.repairs.length} pairing repairs (the request only; the record is untouched)</b>
          <ul>
            {data.repairs.map((r, k) => (
              <li key={k}>
                <code>{r.kind}</code> {r.itemId ?? ''} {r.callId ? `(call ${r.callId})` : ''}: {r.detail}
              </li>
            ))}
          </ul>
        </div>
      )}
      {data && (
        <div class="side">
          <div class="col" data-testid="screen">
            <h3>screen: what a person reads</h3>
            {data.bubbles !== undefined && data.bubbles > data.screen.bubbles.length && (
              <p class="dim">
                the newest {data.screen.bubbles.length} of {data.bubbles} bubbles
              </p>
            )}
            {data.screen.bubbles.map((b) => (
              <div key={b.id} class={`bubble ${b.who}`}>
                {hiddenText(b.hiddenBefore) && <div class="hidden">{hiddenText(b.hiddenBefore)} hidden</div>}
                <div>{b.text}</div>
                {b.images.length > 0 && <div class="dim">{b.images.length} image(s)</div>}
              </div>
            ))}
          </div>
          <div class="col" data-testid="wire">
            <h3>
              wire: {data.provider} {wire.key}
            </h3>
            {data.wireEntries !== undefined && data.wireEntries > wire.entries.length && (
              <p class="dim">
                the newest {wire.entries.length} of {data.wireEntries} entries (export for all)
              </p>
            )}
            {wire.entries.map((e, k) => {
              const text = JSON.stringify(
                e,
                (key, v) =>
                  key === 'data' && typeof v === 'string' && v.length > 80
                    ? `${v.slice(0, 40)}…(${v.length} chars)`
                    : v,
                2,
              );
              const hit = [...repaired].some((id) => text.includes(id));
              return (
                <pre
                  key={k}
                  class={`code wire-entry${hit ? ' repaired' : ''}`}
                  data-repaired={hit ? '1' : undefined}
                >
                  {text}
                </pre>
              );
            })}
          </div>
        </div>
      )}
    </div>
  );
}

interface Preview {
  model: string;
  note: string | null;
  report: {
    fits: boolean;
    tokensBefore: number;
    tokensAfter: number;
    budget: { window: number; limit: number; target: number };
    rungs: {
      rung: string;
      applied: boolean;
      tokensBefore: number;
      tokensAfter: number;
      items: string[];
      reason: string;
    }[];
    snapshot?: {
      variant: string;
      pages: number;
      ratio: number;
      legibility: { cer?: number; note?: string; source?: string };
    };
    reasons: string[];
  };
  runs: { items: string[]; text: string; textTokens: number }[];
  pages: {
    run: number;
    page: number;
    width: number;
    height: number;
    chars: number;
    png: string;
    decoded: string | null;
    /** Pixel band of each decoded line on the page (lines layout). */
    lines: { y: number; h: number }[] | null;
  }[];
  takenBy: Record<string, string>;
  path: PathRow[];
  tokens: { before: TokenRow[]; after: TokenRow[]; totalBefore: number; totalAfter: number };
  /** `null` past a megabyte (`requestBytes` says how big). */
  request: unknown;
  requestBytes?: number;
}

function PageBeside(props: { page: Preview['pages'][number]; source: string }) {
  const [hover, setHover] = useState<string | null>(null);
  const [at, setAt] = useState<number | null>(null);
  const lines = (props.page.decoded ?? '').split('\n');
  const band = at === null ? undefined : props.page.lines?.[at];
  // Pointer over the page: the line whose band holds that pixel row.
  const lineAt = (y: number): number | null => {
    const k = props.page.lines?.findIndex((b) => y >= b.y && y < b.y + b.h) ?? -1;
    return k >= 0 ? k : null;
  };
  const enter = (k: number | null) => {
    setAt(k);
    setHover(k === null ? null : (lines[k] ?? null));
  };
  return (
    <div class="page-pair" data-testid="snapshot-page">
      <div
        class="page-img"
        onMouseMove={(e) => enter(lineAt((e as MouseEvent).offsetY))}
        onMouseLeave={() => enter(null)}
      >
        <img
          src={`data:image/png;base64,${props.page.png}`}
          width={props.page.width}
          height={props.page.height}
          alt={`snapshot page ${props.page.page + 1}`}
        />
        {band && (
          <div
            class="band"
            data-testid="page-band"
            ref={(el) => {
              if (!el) return;
              el.style.top = `${band.y}px`;
              el.style.height = `${band.h}px`;
            }}
          />
        )}
      </div>
      <div class="page-text">
        <div class="dim">
          page {props.page.page + 1}: {props.page.width}×{props.page.height}, {props.page.chars} chars;
          decoded from the pixels:
        </div>
        {props.page.decoded === null ? (
          <p class="error">this page variant cannot be decoded here; the run's source text is below</p>
        ) : (
          <pre class="code decoded">
            {lines.map((l, k) => (
              <div
                key={k}
                data-line={k}
                class={`line${at === k ? ' hl' : ''}`}
                onMouseEnter={() => enter(k)}
                onMouseLeave={() => enter(null)}
              >
                {l || ' '}
              </div>
            ))}
          </pre>
        )}
        <details>
          <summary>source text of the run</summary>
          <pre class="code">
            {props.source.split('\n').map((l, k) => (
              <div
                key={k}
                class={`line${hover !== null && l.trim() !== '' && l.trimEnd() === hover.trimEnd() ? ' hl' : ''}`}
              >
                {l || ' '}
              </div>
            ))}
          </pre>
        </details>
      </div>
    </div>
  );
}

export function CompactPreview(props: { api: string; at: string | null }) {
  const [model, setModel] = useState('claude-sonnet-4-5');
  const [budget, setBudget] = useState('20000');
  const [data, setData] = useState<Preview | null>(null);
  const [busy, setBusy] = useState(false);
  const [showBody, setShowBody] = useState(false);
  const [error, setError] = useState('');
  const run = async () => {
    setBusy(true);
    setError('');
    try {
      setData(
        await post<Preview>(`${props.api}/compact-preview`, { model, budget: Number(budget), at: props.at }),
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const scale = data ? Math.max(1, ...data.tokens.before.map((r) => r.tokens)) : 1;
  return (
    <div class="compact">
      <div class="row">
        <label>
          model{' '}
          <input
            data-testid="compact-model"
            value={model}
            onInput={(e) => setModel((e.currentTarget as HTMLInputElement).value)}
          />
        </label>{' '}
        <label>
          budget (tokens){' '}
          <input
            data-testid="compact-budget"
            value={budget}
            onInput={(e) => setBudget((e.currentTarget as HTMLInputElement).value)}
          />
        </label>{' '}
        <button data-testid="compact-run" disabled={busy} onClick={run}>
          {busy ? 'running…' : 'run the ladder (nothing is written)'}
        </button>
      </div>
      {error && (
        <p class="error" data-testid="compact-error">
          {error}
        </p>
      )}
      {data && (
        <div data-testid="compact-result">
          {data.note && <p class="dim">{data.note}</p>}
          <p>
            <b data-testid="compact-summary">
              {data.report.tokensBefore.toLocaleString('en')} → {data.report.tokensAfter.toLocaleString('en')}{' '}
              tokens, {data.report.fits ? 'fits' : 'does not fit'} (target{' '}
              {data.report.budget.target.toLocaleString('en')})
            </b>
          </p>
          <table class="list" data-testid="rungs">
            <thead>
              <tr>
                <th>rung</th>
                <th>applied</th>
                <th>tokens</th>
                <th>items</th>
                <th>why</th>
              </tr>
            </thead>
            <tbody>
              {data.report.rungs.map((r) => (
                <tr key={r.rung}>
                  <td>{r.rung}</td>
                  <td>{r.applied ? 'yes' : 'no'}</td>
                  <td class="num">
                    {r.tokensBefore.toLocaleString('en')} → {r.tokensAfter.toLocaleString('en')}
                  </td>
                  <td class="num">{r.items.length}</td>
                  <td>{r.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.report.snapshot && (
            <p data-testid="legibility">
              snapshot: {data.report.snapshot.pages} pages of {data.report.snapshot.variant},{' '}
              {data.report.snapshot.ratio.toFixed(1)}× cheaper than its text; expected CER{' '}
              {data.report.snapshot.legibility.cer !== undefined
                ? `${(data.report.snapshot.legibility.cer * 100).toFixed(1)}%`
                : 'unknown'}
              {data.report.snapshot.legibility.source ? ` (${data.report.snapshot.legibility.source})` : ''}
            </p>
          )}
          <div class="side">
            <div class="col">
              <h3>before: {data.tokens.totalBefore.toLocaleString('en')}</h3>
              <TokenBars rows={data.tokens.before} scale={scale} testid="bars-before" />
            </div>
            <div class="col">
              <h3>after: {data.tokens.totalAfter.toLocaleString('en')}</h3>
              <TokenBars rows={data.tokens.after} scale={scale} testid="bars-after" />
            </div>
          </div>
          <h3>which rung took which items</h3>
          <div class="taken">
            <VirtualList<PathRow>
              testid="taken"
              total={data.path.length}
              rowHeight={22}
              page={500}
              version={data.path.length}
              load={(offset) => Promise.resolve(data.path.slice(offset, offset + 500))}
              render={(r) => (
                <div class={`node k-${r.kind}${data.takenBy[r.id] ? ` taken r-${data.takenBy[r.id]}` : ''}`}>
                  <span class="tag">{data.takenBy[r.id] ?? 'kept'}</span>{' '}
                  <span class="meta">
                    {r.author}/{r.kind}
                  </span>{' '}
                  <span class="text">{r.preview}</span>
                </div>
              )}
            />
          </div>
          {data.pages.length > 0 && <h3>snapshot pages at 1×, beside the text they hold</h3>}
          {data.pages.map((p) => (
            <PageBeside key={`${p.run}/${p.page}`} page={p} source={data.runs[p.run]?.text ?? ''} />
          ))}
          <details onToggle={(e) => setShowBody((e.currentTarget as HTMLDetailsElement).open)}>
            <summary>the request body</summary>
            {/* Drawn only when opened: a big history's request is megabytes of text. */}
            {showBody && data.request === null && (
              <p class="dim">
                {data.requestBytes?.toLocaleString('en')} bytes: too big to show here; `glyphfold compact`
                writes it
              </p>
            )}
            {showBody && data.request !== null && (
              <pre class="code">
                {JSON.stringify(
                  data.request,
                  (k, v) =>
                    k === 'data' && typeof v === 'string' && v.length > 80 ? `${v.slice(0, 40)}…` : v,
                  2,
                )}
              </pre>
            )}
          </details>
        </div>
      )}
    </div>
  );
}
