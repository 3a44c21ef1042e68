/** The JSON body `POST /v1/render` accepts, and its validation (400 on shape, naming the field). */
import { CELL_NAMES, MAX_SCALE, type CellName } from '../render/cells.js';
import { HttpError } from './errors.js';

/** What a client posts. Exactly one of `text` and `transcript`. */
export interface RenderRequestBody {
  /** Plain text to render. */
  text?: string;
  /** A transcript in any format `importTranscript` reads: a JSONL string, or parsed JSON. */
  transcript?: unknown;
  /** Model id as the route names it (`claude-opus-4-7`, `openai/gpt-5.5`, `us.anthropic.…`). */
  model: string;
  cell?: CellName;
  scale?: number;
  /** Accept a guessed profile for an unknown model id instead of answering 422. */
  allowGuess?: boolean;
}

const FIELDS = new Set(['text', 'transcript', 'model', 'cell', 'scale', 'allowGuess']);

const bad = (message: string) => new HttpError(400, 'bad_request', message);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `a string` : `${typeof value}`;
}

/** Checks the parsed body field by field; the error names the field, what was expected and found. */
export function validateRenderBody(body: unknown): RenderRequestBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad(`request body must be a JSON object, found ${describe(body)}`);
  }
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!FIELDS.has(key)) throw bad(`unknown field '${key}': expected ${[...FIELDS].join(', ')}`);
  }
  const { text, transcript, model, cell, scale, allowGuess } = record;
  if (typeof model !== 'string' || model.trim() === '') {
    throw bad(
      model === undefined
        ? 'missing field \'model\': expected a model id such as "claude-sonnet-4-6"'
        : `field 'model' must be a non-empty string, found ${describe(model)}`,
    );
  }
  if (text !== undefined && transcript !== undefined) {
    throw bad("fields 'text' and 'transcript' are exclusive: send one of them");
  }
  if (text === undefined && transcript === undefined) {
    throw bad("missing field 'text' or 'transcript': send the content to render");
  }
  if (text !== undefined && typeof text !== 'string') {
    throw bad(`field 'text' must be a string, found ${describe(text)}`);
  }
  if (transcript === null) throw bad("field 'transcript' must be a string or JSON, found null");
  if (cell !== undefined && !CELL_NAMES.includes(cell as CellName)) {
    throw bad(`field 'cell' must be one of ${CELL_NAMES.join(', ')}, found ${JSON.stringify(cell)}`);
  }
  if (
    scale !== undefined &&
    (!Number.isInteger(scale) || (scale as number) < 1 || (scale as number) > MAX_SCALE)
  ) {
    throw bad(`field 'scale' must be an integer from 1 to ${MAX_SCALE}, found ${JSON.stringify(scale)}`);
  }
  if (allowGuess !== undefined && typeof allowGuess !== 'boolean') {
    throw bad(`field 'allowGuess' must be a boolean, found ${describe(allowGuess)}`);
  }
  const out: RenderRequestBody = { model: model.trim() };
  if (text !== undefined) out.text = text as string;
  if (transcript !== undefined) out.transcript = transcript;
  if (cell !== undefined) out.cell = cell as CellName;
  if (scale !== undefined) out.scale = scale as number;
  if (allowGuess !== undefined) out.allowGuess = allowGuess;
  return out;
}
