/**
 * `node scripts/consumer-app.mjs` (CI, after the build): the package as a new user gets it.
 *
 * Packs the tarball (running `prepack`, the build), installs it into a fresh app in a temp folder with
 * production dependencies only (plus the Anthropic and OpenAI SDKs, the optional peers the snippets
 * use), then:
 * - compiles every ```ts snippet of README.md as written, each as its own module, under `tsc --strict`
 *   with `skipLibCheck: false` (NodeNext resolution), with a prelude (PRELUDE below) declaring the
 *   harness names the snippets use without defining (an open history, the SDK client, …);
 * - compiles an import of every subpath under the old `moduleResolution: "node"` (typesVersions);
 * - runs the snippets that need no provider (the record, importers, rendering, profiles, serverless);
 * - runs the CLI from the installed package (`--version`, `render`, `compact`).
 * TypeScript and @types/node come from this repository's devDependencies (the app's own dev tools).
 * Prints the tarball's size and file count. Exits non-zero on the first failure.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What the README's snippets use without defining: the harness around them (an open history, the SDK
 * client, the caller's system prompt and tools). Each snippet is compiled as written, as its own
 * module, with these names in scope; a snippet that defines one of them shadows it.
 */
const PRELUDE = `declare const h: import('glyphfold').AgentHistory;
declare const anthropic: import('@anthropic-ai/sdk').default;
declare const calibrator: import('glyphfold').Calibrator;
declare const system: string;
declare const tools: import('glyphfold').ToolSpec[];
declare const lastCallAt: number;
declare const text: string;
`;

const repo = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
// `--app DIR` reuses an app a `--keep` run installed (skips packing and installing, for iterating).
const reuse = process.argv.includes('--app') ? process.argv[process.argv.indexOf('--app') + 1] : undefined;
const work = reuse ? join(reuse, '..') : mkdtempSync(join(tmpdir(), 'glyphfold-consumer-'));
const app = join(work, 'app');
const keep = process.argv.includes('--keep') || reuse !== undefined;
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

function run(cmd, args, cwd, options = {}) {
  process.stdout.write(`$ ${[cmd, ...args].join(' ')}\n`);
  return execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...options });
}

try {
  if (!reuse) install();
  check();
  console.log('consumer app: ok');
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

function install() {
  // 1. The tarball, as `npm publish` would make it: `prepack` builds it (fonts, WASM, dist/) first, and
  // its output comes before the JSON on stdout.
  const out = run('npm', ['pack', '--json', '--pack-destination', work], repo);
  const packed = JSON.parse(out.slice(Math.max(0, out.search(/^\[$(?![\s\S]*^\[$)/m))));
  const { filename, size, unpackedSize, entryCount, files } = packed[0];
  console.log(
    `tarball ${filename}: ${(size / 1024).toFixed(0)} KiB packed, ${(unpackedSize / 1024).toFixed(0)} KiB unpacked, ${entryCount} files`,
  );
  const stray = files.map((f) => f.path).filter((p) => /\.map$|\.bdf$|^src\//.test(p));
  if (stray.length) throw new Error(`tarball ships files nothing reads: ${stray.slice(0, 5).join(', ')}`);

  // 2. A fresh app: the tarball and the two SDKs, production dependencies only.
  mkdirSync(app);
  const dev = pkg.devDependencies;
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'consumer',
        private: true,
        type: 'module',
        dependencies: {
          glyphfold: `file:../${filename}`,
          '@anthropic-ai/sdk': dev['@anthropic-ai/sdk'],
          openai: dev['openai'],
        },
      },
      null,
      2,
    ),
  );
  run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], app);
}

function check() {
  for (const d of ['snippets', 'node10', 'src', 'out'])
    rmSync(join(app, d), { recursive: true, force: true });

  // 3. Every README snippet as its own module.
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const snippets = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  if (snippets.length < 5)
    throw new Error(`expected the README's TypeScript snippets, found ${snippets.length}`);
  const casts = snippets.filter((code) => /\bas\s+(unknown|any|[A-Z][\w.]*)\b/.test(code));
  if (casts.length) throw new Error(`README snippets cast: ${casts.map((c) => c.split('\n')[0]).join('; ')}`);
  mkdirSync(join(app, 'snippets'));
  const names = snippets.map((code, i) => {
    const name = `snippet-${String(i + 1).padStart(2, '0')}.ts`;
    // `export {}` keeps a snippet without imports a module (its names stay its own).
    writeFileSync(join(app, 'snippets', name), `${code}\nexport {};\n`);
    return name;
  });
  writeFileSync(join(app, 'snippets', 'prelude.d.ts'), PRELUDE);
  const strict = {
    strict: true,
    skipLibCheck: false,
    noEmit: false,
    outDir: 'out',
    rootDir: 'snippets',
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    typeRoots: [join(repo, 'node_modules', '@types')],
    types: ['node'],
  };
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: strict, include: ['snippets'] }, null, 2),
  );
  run(process.execPath, [tsc, '-p', 'tsconfig.json'], app, { stdio: 'inherit' });
  console.log(`${names.length} README snippets compile under tsc --strict (skipLibCheck false)`);

  // 4. Every subpath under moduleResolution "node" (node10): `types` and `typesVersions`.
  // Code entry points only: package.json and the raw WASM core (a Workers module binding) have no types.
  const subpaths = Object.keys(pkg.exports).filter((k) => k !== './package.json' && !k.endsWith('.wasm'));
  mkdirSync(join(app, 'node10'));
  writeFileSync(
    join(app, 'node10', 'imports.ts'),
    subpaths
      .map((s, i) => `import * as m${i} from '${s === '.' ? 'glyphfold' : `glyphfold/${s.slice(2)}`}';`)
      .join('\n') + `\nexport const all = [${subpaths.map((_, i) => `m${i}`).join(', ')}];\n`,
  );
  writeFileSync(
    join(app, 'tsconfig.node10.json'),
    JSON.stringify(
      {
        compilerOptions: {
          ...strict,
          noEmit: true,
          rootDir: 'node10',
          module: 'ESNext',
          moduleResolution: 'node',
          ignoreDeprecations: '6.0',
        },
        include: ['node10'],
      },
      null,
      2,
    ),
  );
  run(process.execPath, [tsc, '-p', 'tsconfig.node10.json'], app, { stdio: 'inherit' });
  console.log(`${subpaths.length} entry points resolve their types under moduleResolution "node"`);

  // 5. Run the snippets that need no provider call, from the compiled output.
  mkdirSync(join(app, 'src'));
  writeFileSync(join(app, 'src', 'a.ts'), 'export const a = 1;\n');
  copyFileSync(join(repo, 'examples', 'session.claude.jsonl'), join(app, 'session.jsonl'));
  const prelude = `globalThis.text = 'Hello from the README.\\n\\tan indented line';\n`;
  let ran = 0;
  for (const name of names) {
    const code = readFileSync(join(app, 'snippets', name), 'utf8');
    if (/\b(anthropic|calibrator|lastCallAt)\b/.test(code.replace(/'[^']*'/g, ''))) continue; // needs a provider
    const js = join(app, 'out', name.replace(/\.ts$/, '.js'));
    const runner = join(app, 'out', `run-${name.replace(/\.ts$/, '.mjs')}`);
    writeFileSync(runner, `${prelude}await import(${JSON.stringify(js)});\n`);
    run(process.execPath, [runner], app, { stdio: 'inherit' });
    ran++;
  }
  console.log(`${ran} README snippets ran`);

  // 6. The CLI from the installed package.
  const bin = join(app, 'node_modules', '.bin', 'glyphfold');
  const version = run(bin, ['--version'], app).trim();
  if (version !== pkg.version)
    throw new Error(`glyphfold --version printed '${version}', expected ${pkg.version}`);
  writeFileSync(join(app, 'note.txt'), 'A note rendered by the installed CLI.\n');
  run(bin, ['render', 'note.txt', '--shape', '400x120', '--out', 'pages'], app);
  run(
    bin,
    ['compact', 'session.jsonl', '--model', 'claude-sonnet-4-5', '--budget', '100000', '--out', 'out-cli'],
    app,
  );
}
