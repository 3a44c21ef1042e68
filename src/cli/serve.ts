/** `glyphfold serve`: the serverless handler under Node's HTTP server. */
import { parseArgs } from 'node:util';
import { serve } from '../adapters/node.js';
import { createHandler, DEFAULT_LIMITS, type Limits } from '../serverless/index.js';
import { UsageError, type Command } from './command.js';
import { openStore, storeSpec, STORE_OPTIONS } from './store.js';

function positiveInt(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new UsageError(`--${name} must be an integer ≥ ${min}, found '${raw}'`);
  }
  return Number(raw);
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the snapshot-rendering HTTP endpoint (POST /v1/render, GET /v1/health)',
  usage: `usage: glyphfold serve [--port N] [--host H] [--max-body BYTES] [--max-text CHARS]
                       [--max-pages N] [--allow-guess] [--workspace DIR | --store URL]

Serves the glyphfold/serverless handler with Node's HTTP server until SIGINT or SIGTERM.

  --port N           port to listen on (default 8787; 0 picks a free one)
  --host H           interface (default 127.0.0.1; 0.0.0.0 exposes it to the network)
  --max-body BYTES   largest request body (default ${DEFAULT_LIMITS.maxBodyBytes})
  --max-text CHARS   longest text after a transcript is flattened (default ${DEFAULT_LIMITS.maxTextChars})
  --max-pages N      most pages one request may render (default ${DEFAULT_LIMITS.maxPages})
  --allow-guess      render for unknown model ids with the guessed profile instead of answering 422
  --workspace DIR    also serve the inspector over DIR at / (as 'glyphfold inspect'; docs/inspector.md)
  --store URL        the same over a store named by URL (postgres://USER@HOST:PORT/DB, file:DIR)

Prints "listening on http://HOST:PORT" on stdout once ready. See docs/serverless.md.`,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'max-body': { type: 'string' },
        'max-text': { type: 'string' },
        'max-pages': { type: 'string' },
        'allow-guess': { type: 'boolean', default: false },
        ...STORE_OPTIONS,
      },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const port = positiveInt('port', values.port, 8787, 0);
    if (port > 65535) throw new UsageError(`--port must be at most 65535, found ${port}`);
    const limits: Limits = {
      maxBodyBytes: positiveInt('max-body', values['max-body'], DEFAULT_LIMITS.maxBodyBytes),
      maxTextChars: positiveInt('max-text', values['max-text'], DEFAULT_LIMITS.maxTextChars),
      maxPages: positiveInt('max-pages', values['max-pages'], DEFAULT_LIMITS.maxPages),
    };
    const handler = createHandler({ limits, allowGuess: values['allow-guess'] });
    let running: { url: string; close(): Promise<void> };
    // Only the options name a store here: without one, serve is the render endpoint alone.
    const spec = storeSpec(values, io, { env: false });
    if (spec !== undefined) {
      // The inspector beside the endpoint (docs/inspector.md); loaded only when asked for.
      const { startInspector } = await import('../inspector/index.js');
      const inspector = await startInspector({
        store: await openStore(spec, { readOnly: false, mustExist: true }),
        port,
        host: values.host ?? '127.0.0.1',
        v1: handler,
      });
      running = { url: new URL(inspector.url).origin, close: () => inspector.close() };
      io.stdout.write(`inspector on ${inspector.url}\n`);
    } else running = await serve(handler, { port, host: values.host ?? '127.0.0.1' });
    io.stdout.write(`listening on ${running.url}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await running.close();
    io.stderr.write('glyphfold serve: stopped\n');
    return 0;
  },
};
