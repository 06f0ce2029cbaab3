import { closest } from 'fastest-levenshtein';
import type { Command } from './commands.ts';

/**
 * What the CLI says when it is asked for help, or given a name it does not know: a command's own
 * usage for `<command> --help`, and for an unknown command or option, that it is unknown and the
 * nearest name it does know (a typo is the usual cause).
 */
export const HELP_FLAGS = new Set(['--help', '-h', 'help']);

export const commandHelp = (name: string, command: Command) =>
  [`Usage: npm run admin -- ${name} ${command.usage}`, '', `  ${command.summary}`, '', 'Add --table NAME --region REGION to work on a deployed table.', ''].join('\n');

export const unknownCommand = (name: string, known: string[]) =>
  `Unknown command '${name}'. Did you mean '${closest(name, known)}'? Run \`npm run admin\` for the list of commands.\n`;

/** The flags a command's usage line names. */
export const flagsOf = (command: Command) => [...command.usage.matchAll(/--([a-z-]+)/g)].map((match) => match[1]);

/** node:util parseArgs names the option it refused in its message: `Unknown option '--x'`. */
export const unknownOption = (message: string, name: string, command: Command) => {
  const refused = /Unknown option '--([^']+)'/.exec(message)?.[1];
  const own = [...flagsOf(command), 'table', 'region', 'endpoint'];
  if (!refused) return `${message}\n`;
  return `Unknown option '--${refused}' for ${name}. Did you mean '--${closest(refused, own)}'? Run \`npm run admin -- ${name} --help\` for its usage.\n`;
};
