import { UsageError } from './command.js';

/** The `--workspace DIR` every workspace command needs. */
export function requireWorkspace(value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError('--workspace DIR is required');
  return value;
}
