import { closest } from 'fastest-levenshtein';
import type { Command } from './commands.ts';

/**
 * What the CLI says when it is asked for help, or given a name it does not know: a command's own
 * usage and worked examples for `<command> --help`, and for an unknown command or option, that it
 * is unknown and the nearest name it does know (a typo is the usual cause).
 */
export const HELP_FLAGS = new Set(['--help', '-h', 'help']);

/** One of a command's examples as it is typed. */
export const invocation = (name: string, example: string) => `npm run admin -- ${name} ${example}`.trimEnd();

export const commandHelp = (name: string, command: Command) =>
  [
    `Usage: npm run admin -- ${name} ${command.usage}`,
    '',
    `  ${command.summary}`,
    '',
    command.examples.length > 1 ? 'Examples:' : 'Example:',
    ...command.examples.map((example) => `  ${invocation(name, example)}`),
    '',
    'Add --table NAME --region REGION to work on a deployed table.',
    '',
  ].join('\n');

export const unknownCommand = (name: string, known: string[]) =>
  `Unknown command '${name}'. Did you mean '${closest(name, known)}'? Run \`npm run admin\` for the list of commands.\n`;

/** The flags a command's usage line names. */
export const flagsOf = (command: Command) => [...command.usage.matchAll(/--([a-z-]+)/g)].map((match) => match[1]);

/** The flags that take no value (`--json`): the usage line writes them alone in brackets, `[--json]`. */
export const switchesOf = (command: Command) => [...command.usage.matchAll(/\[--([a-z-]+)\]/g)].map((match) => match[1]);

/** The flags that may be given more than once: the usage line marks them, `[--field NAME=PATH (repeatable)]`. */
export const repeatablesOf = (command: Command) => [...command.usage.matchAll(/\[--([a-z-]+)[^\]]*\(repeatable\)\]/g)].map((match) => match[1]);

/** node:util parseArgs names the option it refused in its message: `Unknown option '--x'`. */
export const unknownOption = (message: string, name: string, command: Command) => {
  const refused = /Unknown option '--([^']+)'/.exec(message)?.[1];
  const own = [...flagsOf(command), 'table', 'region', 'endpoint'];
  if (!refused) return `${message}\n`;
  return `Unknown option '--${refused}' for ${name}. Did you mean '--${closest(refused, own)}'? Run \`npm run admin -- ${name} --help\` for its usage.\n`;
};

/**
 * A word with no flag before it (`list-members 01jq...`, or `--json true`): parseArgs says only
 * that it takes no positional arguments, so the answer shows where the value goes instead.
 */
export const unexpectedArgument = (message: string, name: string, command: Command, args: readonly string[]) => {
  const word = /Unexpected argument '([^']*)'/.exec(message)?.[1] ?? '';
  const before = args[args.indexOf(word) - 1];
  if (before?.startsWith('--') && switchesOf(command).includes(before.slice(2))) return `${before} takes no value: leave out '${word}'.\n`;
  return [
    `Unexpected argument '${word}' for ${name}: each value follows its flag, as in`,
    `  ${invocation(name, command.examples[0])}`,
    `Run \`npm run admin -- ${name} --help\` for its usage.`,
    '',
  ].join('\n');
};
