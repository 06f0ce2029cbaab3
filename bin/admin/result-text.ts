import type { Flags } from './commands.ts';
import { Readable } from './readable.ts';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** What the CLI prints for a command's result. */
export const resultText = (result: unknown, flags: Flags) => {
  if (result instanceof Readable) return flags.json === true ? json(result.json) : result.text;
  // A command may lead with plain lines (`Webhook URL: ...`) for a person to copy; the JSON follows.
  if (result && typeof result === 'object' && Array.isArray((result as { lines?: unknown }).lines)) {
    const { lines, ...rest } = result as { lines: string[] };
    return `${lines.join('\n')}\n\n${json(rest)}`;
  }
  return json(result);
};
