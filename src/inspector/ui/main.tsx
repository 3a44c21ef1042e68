/** The inspector page: conversations → one agent's tree, with path, views, compaction preview, export. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  base,
  get,
  post,
  READ_ONLY,
  type ConversationRow,
  type PathRow,
  type TreePage,
  type TreeRow,
} from './api.js';
import { TokenBars, VirtualList } from './parts.js';
import { CompactPreview, Views } from './panels.js';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

const ago = (iso: string): string => iso.replace('T', ' ').slice(0, 19);

function Conversations() {
  const [q, setQ] = useState('');
  const [rows, setRows] = useState<ConversationRow[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState('');
  useEffect(() => {
    const t = setTimeout(() => {
      get<{ total: number; conversations: ConversationRow[] }>('/api/conversations', { q }).then(
        (r) => {
          setRows(r.conversations);
          setTotal(r.total);
          setError('');
        },
        (e: Error) => setError(e.message),
      );
    }, 150);
    return () => clearTimeout(t);
  }, [q]);
  return (
    <main class="page">
      <h1>Conversations</h1>
      <input
        class="search"
        data-testid="search"
        placeholder="search ids and text…"
        value={q}
        onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
      />
      {error && <p class="error">{error}</p>}
      <p class="dim" data-testid="conversation-count">
        {total} conversation{total === 1 ? '' : 's'}
        {q ? ` matching “${q}”` : ''}
      </p>
      <table class="list" data-testid="conversations">
        <thead>
          <tr>
            <th>conversation</th>
            <th>agents (items, turns)</th>
            <th>lineage</th>
            <th>last activity</th>
            {q && <th>hits</th>}
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((c) => (
            <tr key={c.id} data-conversation={c.id}>
              <td>
                <a href={`#/c/${c.id}/${c.agents[0]?.agent ?? 'main'}`}>{c.id}</a>
              </td>
              <td>
                {c.agents.map((a) => (
                  <a
                    class="agent"
                    key={a.agent}
                    href={`#/c/${c.id}/${a.agent}${c.match.first ? `/${c.match.first}` : ''}`}
                  >
                    {a.agent} ({a.items}, {a.turn})
                  </a>
                ))}
              </td>
              <td>
                {c.forkedFrom && (
                  <span>
                    from{' '}
                    <a href={`#/c/${c.forkedFrom.conversation}/${c.forkedFrom.agent}`}>
                      {c.forkedFrom.conversation}
                    </a>
                  </span>
                )}
                {c.forks.length > 0 && <span class="dim"> {c.forks.length} fork(s)</span>}
              </td>
              <td class="dim">{ago(c.lastActivity)}</td>
              {q && <td class="num">{c.match.hits}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}

const ROW = 22;
const PAGE = 500;

function TreeLine(props: { row: TreeRow; agent: string; selected: boolean; onSelect: (id: string) => void }) {
  const r = props.row;
  return (
    <div
      class={`node k-${r.kind} a-${r.author}${r.active ? ' active' : ''}${props.selected ? ' selected' : ''}`}
      data-id={r.id}
      data-testid="tree-node"
      onClick={() => props.onSelect(r.id)}
      ref={(el) => {
        if (el) el.style.paddingLeft = `${6 + r.lane * 18}px`;
      }}
    >
      <span class="glyph">{r.children > 1 ? '◆' : r.lane > 0 ? '└' : '│'}</span>
      <span class="meta">
        t{r.turn} {r.author}/{r.kind}
      </span>{' '}
      {r.tip && <span class="tag tip">tip</span>}
      {r.checkpoints.map((c) => (
        <span class="tag cp" key={c}>
          ⚑ {c}
        </span>
      ))}
      {r.forks.map((f) => (
        <a class="tag fork" key={f} href={`#/c/${f}/${props.agent}`} onClick={(e) => e.stopPropagation()}>
          fork → {f}
        </a>
      ))}
      <span class="text">{r.preview}</span>
    </div>
  );
}

type Tab = 'path' | 'views' | 'compact' | 'export';

function Conversation(props: { conversation: string; agent: string; focus?: string }) {
  const { conversation, agent } = props;
  const api = base(conversation, agent);
  const [head, setHead] = useState<TreePage | null>(null);
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<string | null>(props.focus ?? null);
  const [scrollTo, setScrollTo] = useState<number | undefined>(undefined);
  const [tab, setTab] = useState<Tab>('path');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [label, setLabel] = useState('');
  const [rewindLabel, setRewindLabel] = useState('');
  const [rewindPreview, setRewindPreview] = useState<{ abandoned: number; digest: string | null } | null>(
    null,
  );

  const reload = (find?: string | null) =>
    get<TreePage>(`${api}/tree`, { limit: 0, find: find ?? selected ?? undefined }).then(
      (t) => {
        setHead(t);
        setVersion((v) => v + 1);
        if (t.index !== undefined && t.index >= 0) setScrollTo(t.index);
        setError('');
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    void reload(props.focus);
  }, [conversation, agent]);

  const select = (id: string) => {
    setSelected(id);
    setRewindPreview(null);
  };
  const act = async (what: string, run: () => Promise<string>) => {
    setError('');
    try {
      setStatus(await run());
      await reload();
    } catch (e) {
      setError(`${what}: ${(e as Error).message}`);
    }
  };
  const at = selected ?? head?.tip ?? null;

  return (
    <main class="split">
      <section class="left">
        <div class="crumbs">
          <a href="#/">conversations</a> / <b data-testid="conversation-id">{conversation}</b> / {agent}
          {head?.header?.forkedFrom && (
            <span class="dim">
              {' '}
              (fork of{' '}
              <a href={`#/c/${head.header.forkedFrom.conversation}/${agent}`}>
                {head.header.forkedFrom.conversation}
              </a>
              )
            </span>
          )}
        </div>
        <div class="dim" data-testid="tree-summary">
          {head
            ? `${head.total} items · turn ${head.turn} · tip ${head.tip ?? 'none'} · ${head.checkpoints.length} checkpoints`
            : 'loading…'}
        </div>
        {head?.problems.map((p, k) => (
          <p class="error" key={k}>
            {p.kind}: {p.message}
          </p>
        ))}
        {head && (
          <VirtualList<TreeRow>
            testid="tree"
            total={head.total}
            rowHeight={ROW}
            page={PAGE}
            version={version}
            scrollTo={scrollTo}
            load={(offset) => get<TreePage>(`${api}/tree`, { offset, limit: PAGE }).then((p) => p.rows)}
            render={(row) => <TreeLine row={row} agent={agent} selected={row.id === at} onSelect={select} />}
          />
        )}
      </section>
      <section class="right">
        <div class="actions">
          <div>
            selected <code data-testid="selected">{at ?? '—'}</code>
            {at === head?.tip && <span class="tag tip">tip</span>}
          </div>
          {!READ_ONLY && (
            <div class="buttons">
              <button
                data-testid="switch-branch"
                disabled={!selected || selected === head?.tip}
                onClick={() =>
                  act('switch branch', async () => {
                    const r = await post<{ tip: string }>(`${api}/branch`, { at: selected });
                    return `tip moved to ${r.tip}`;
                  })
                }
              >
                switch branch here
              </button>
              <button
                data-testid="fork"
                disabled={!at}
                onClick={() =>
                  act('fork', async () => {
                    const r = await post<{ conversation: string; items: number }>(`${api}/fork`, { at });
                    return `forked ${r.items} items into ${r.conversation}`;
                  })
                }
              >
                fork from here
              </button>
              <span class="group">
                <input
                  data-testid="checkpoint-label"
                  placeholder="label"
                  value={label}
                  onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)}
                />
                <button
                  data-testid="checkpoint"
                  disabled={label.trim() === ''}
                  title="labels the tip (a checkpoint names the current position)"
                  onClick={() =>
                    act('checkpoint', async () => {
                      const c = await post<{ label: string; at: string | null }>(`${api}/checkpoint`, {
                        label: label.trim(),
                      });
                      setLabel('');
                      return `checkpoint ${c.label} at ${c.at ?? 'the start'}`;
                    })
                  }
                >
                  checkpoint the tip
                </button>
              </span>
              <span class="group">
                <select
                  data-testid="rewind-label"
                  value={rewindLabel}
                  onChange={(e) => {
                    const v = (e.currentTarget as HTMLSelectElement).value;
                    setRewindLabel(v);
                    setRewindPreview(null);
                    if (v)
                      get<{ abandoned: number; digest: string | null }>(`${api}/rewind-preview`, {
                        label: v,
                      }).then(setRewindPreview, (e: Error) => setError(e.message));
                  }}
                >
                  <option value="">rewind to…</option>
                  {head?.checkpoints.map((c) => (
                    <option key={c.label} value={c.label}>
                      {c.label} (turn {c.turn})
                    </option>
                  ))}
                </select>
                <button
                  data-testid="rewind"
                  disabled={!rewindPreview}
                  onClick={() =>
                    act('rewind', async () => {
                      const r = await post<{ abandoned: number; tip: string }>(`${api}/rewind`, {
                        label: rewindLabel,
                      });
                      setRewindPreview(null);
                      setRewindLabel('');
                      return `rewound to ${rewindLabel}: ${r.abandoned} items abandoned, tip ${r.tip}`;
                    })
                  }
                >
                  rewind
                </button>
              </span>
            </div>
          )}
          {rewindPreview && (
            <div class="digest" data-testid="rewind-preview">
              <b>
                rewinding abandons {rewindPreview.abandoned} items; the digest kept after {rewindLabel}:
              </b>
              <pre>{rewindPreview.digest ?? '(nothing abandoned: no digest)'}</pre>
            </div>
          )}
          {status && (
            <p class="status" data-testid="status">
              {status}
            </p>
          )}
          {error && (
            <p class="error" data-testid="error">
              {error}
            </p>
          )}
        </div>
        <nav class="tabs">
          {(['path', 'views', 'compact', 'export'] as Tab[]).map((t) => (
            <button key={t} data-testid={`tab-${t}`} class={t === tab ? 'on' : ''} onClick={() => setTab(t)}>
              {{ path: 'path', views: 'screen vs wire', compact: 'compaction preview', export: 'export' }[t]}
            </button>
          ))}
        </nav>
        {tab === 'path' && <PathList api={api} at={at} version={version} onSelect={select} />}
        {tab === 'views' && <Views api={api} at={at} />}
        {tab === 'compact' && <CompactPreview api={api} at={at} />}
        {tab === 'export' && <Export api={api} at={at} />}
      </section>
    </main>
  );
}

function PathList(props: {
  api: string;
  at: string | null;
  version: number;
  onSelect: (id: string) => void;
}) {
  const [total, setTotal] = useState<number | null>(null);
  useEffect(() => {
    get<{ total: number }>(`${props.api}/path`, { at: props.at, limit: 0 }).then((r) => setTotal(r.total));
  }, [props.api, props.at, props.version]);
  if (total === null) return <p class="dim">loading…</p>;
  return (
    <div class="path">
      <p class="dim" data-testid="path-summary">
        path root → {props.at ?? 'tip'}: {total} items
      </p>
      <VirtualList<PathRow>
        testid="path"
        total={total}
        rowHeight={ROW}
        page={PAGE}
        version={props.version * 1e6 + total + (props.at ? props.at.length : 0)}
        load={(offset) =>
          get<{ rows: PathRow[] }>(`${props.api}/path`, { at: props.at, offset, limit: PAGE }).then(
            (r) => r.rows,
          )
        }
        render={(r) => (
          <div class={`node k-${r.kind} a-${r.author}`} onClick={() => props.onSelect(r.id)}>
            <span class="meta">
              t{r.turn} {r.author}/{r.kind}
            </span>{' '}
            <span class="text">{r.preview}</span>
          </div>
        )}
      />
    </div>
  );
}

function Export(props: { api: string; at: string | null }) {
  const [format, setFormat] = useState('glyphfold');
  const [text, setText] = useState<string | null>(null);
  const [info, setInfo] = useState('');
  const href = `${props.api}/export?${new URLSearchParams({ format, ...(props.at ? { at: props.at } : {}) })}`;
  useEffect(() => {
    setText(null);
    fetch(href).then(async (r) => {
      const body = await r.text();
      setText(r.ok ? body : `error: ${body}`);
      setInfo(
        `${r.headers.get('x-glyphfold-items') ?? '?'} items, ${r.headers.get('x-glyphfold-notes') ?? 0} notes, ${body.length} bytes`,
      );
    });
  }, [href]);
  return (
    <div class="export">
      <label>
        format{' '}
        <select
          data-testid="export-format"
          value={format}
          onChange={(e) => setFormat((e.currentTarget as HTMLSelectElement).value)}
        >
          {['glyphfold', 'claude-code', 'anthropic', 'openai-chat', 'openai-responses'].map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
      </label>{' '}
      <a class="button" data-testid="export-download" href={href} download>
        download root → {props.at ?? 'tip'}
      </a>{' '}
      <span class="dim" data-testid="export-info">
        {info}
      </span>
      <pre class="code" data-testid="export-text">
        {text === null
          ? 'loading…'
          : text.length > 20000
            ? text.slice(0, 20000) + '\n… (download for the rest)'
            : text}
      </pre>
    </div>
  );
}

function App() {
  const hash = useHash();
  const m = /^#\/c\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/.exec(hash);
  if (m) {
    const [, c, a, focus] = m.map((s) => (s === undefined ? s : decodeURIComponent(s)));
    return <Conversation key={`${c}/${a}`} conversation={c!} agent={a!} {...(focus ? { focus } : {})} />;
  }
  return <Conversations />;
}

export { TokenBars };
render(<App />, document.getElementById('app')!);
