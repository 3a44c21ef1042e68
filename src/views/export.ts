/**
 * Export of one path (root → any item, not only the tip) in the formats other tools read:
 *
 * | format             | what it is                                           | read back by            |
 * |--------------------|------------------------------------------------------|-------------------------|
 * | `glyphfold`        | `exportJsonl`: the items as stored, one per line     | `importTranscript` (exact items) |
 * | `claude-code`      | a Claude Code session JSONL                          | `importTranscript` (same content) |
 * | `anthropic`        | the Anthropic Messages `messages` array              | `importTranscript`      |
 * | `openai-chat`      | the OpenAI Chat Completions `messages` array         | `importTranscript`      |
 * | `openai-responses` | the OpenAI Responses `input` array                   | OpenAI's API            |
 *
 * The provider arrays are what that provider's wire view sends (pairing repaired, context wrapped,
 * no cache marks, no system prompt: that is per request, not part of the record); each repair is a
 * note. Compaction is not replayed: an export is the record, not a compacted request.
 */
import { exportClaudeCode, type ClaudeCodeExportOptions } from '../transcript/export/claude-code.js';
import type { Item } from '../transcript/items.js';
import { exportJsonl } from '../transcript/jsonl.js';
import { wireView } from './wire.js';

export {
  exportClaudeCode,
  type ClaudeCodeExportOptions,
  type TextExport,
} from '../transcript/export/claude-code.js';

export type ExportFormat = 'glyphfold' | 'claude-code' | 'anthropic' | 'openai-chat' | 'openai-responses';
export const EXPORT_FORMATS: readonly ExportFormat[] = [
  'glyphfold',
  'claude-code',
  'anthropic',
  'openai-chat',
  'openai-responses',
];

export interface PathExport {
  format: ExportFormat;
  /** The document: JSONL for `glyphfold` and `claude-code`, a JSON array otherwise. */
  text: string;
  /** `application/jsonl` or `application/json`. */
  mediaType: string;
  /** File extension without the dot: `jsonl` or `json`. */
  extension: string;
  /** What the format could not carry as it was, and repairs made to send it. Empty for `glyphfold`. */
  notes: string[];
}

export interface ExportOptions extends ClaudeCodeExportOptions {
  /** Model id written into the wire view's request (only its `vision` would matter; none is looked up). */
  model?: string;
}

/** `path` (root first; any branch) in `format`. Throws naming the format list for an unknown one. */
export function exportPath(
  path: readonly Item[],
  format: ExportFormat,
  options: ExportOptions = {},
): PathExport {
  switch (format) {
    case 'glyphfold':
      return {
        format,
        text: exportJsonl(path),
        mediaType: 'application/jsonl',
        extension: 'jsonl',
        notes: [],
      };
    case 'claude-code': {
      const { text, notes } = exportClaudeCode(path, options);
      return { format, text, mediaType: 'application/jsonl', extension: 'jsonl', notes };
    }
    case 'anthropic':
    case 'openai-chat':
    case 'openai-responses': {
      const { body, repairs } = wireView(format, path, { model: options.model ?? 'export', cache: false });
      const notes = repairs.map(
        (r) =>
          `repair ${r.kind}${r.itemId ? ` ${r.itemId}` : ''}${r.callId ? ` (call ${r.callId})` : ''}: ${r.detail}`,
      );
      // The conversation array of the body: Anthropic and OpenAI Chat `messages`, Responses `input`.
      const array = 'messages' in body ? body.messages : body.input;
      return {
        format,
        text: JSON.stringify(array, null, 2) + '\n',
        mediaType: 'application/json',
        extension: 'json',
        notes,
      };
    }
    default:
      throw new RangeError(
        `export: format expected one of ${EXPORT_FORMATS.join(', ')}, found ${JSON.stringify(format)}`,
      );
  }
}
