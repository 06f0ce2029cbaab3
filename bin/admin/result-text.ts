import type { Flags } from './commands.ts';
import { Readable } from './readable.ts';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * What the CLI prints for a command's result: JSON on stdout, always alone, so that `| jq` reads
 * it (a secret rotated whose only copy jq could not parse would be lost). A command may also give
 * plain lines for a person to copy (`Webhook URL: ...`): they go to stderr, which a terminal shows
 * above the JSON; --json leaves them out.
 */
export const resultText = (result: unknown, flags: Flags): { stdout: string; stderr: string } => {
  if (result instanceof Readable) return { stdout: flags.json === true ? json(result.json) : result.text, stderr: '' };
  if (result && typeof result === 'object' && Array.isArray((result as { lines?: unknown }).lines)) {
    const { lines, ...rest } = result as { lines: string[] };
    return { stdout: json(rest), stderr: flags.json === true ? '' : `${lines.join('\n')}\n\n` };
  }
  return { stdout: json(result), stderr: '' };
};
