/**
 * The operator CLI: `npm run admin -- <command> [--flags]`. Works on the local table by default,
 * or on a deployed one with --table NAME --region REGION.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError, WriteConflict } from '#core/errors.ts';
import { UsageError, type Flags } from './admin/commands.ts';
import { ALL_COMMANDS } from './admin/all-commands.ts';
import { openTarget } from './admin/target.ts';
import { resultText } from './admin/result-text.ts';
import { commandHelp, flagsOf, HELP_FLAGS, repeatablesOf, switchesOf, unexpectedArgument, unknownCommand, unknownOption } from './admin/command-help.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const help = () =>
  [
    'Usage: npm run admin -- <command> [--flags] [--table NAME --region REGION]',
    '',
    'Without --table the command works on the local table (.data/, or the running npm start).',
    '',
    ...Object.entries(ALL_COMMANDS).map(([name, command]) => `  ${name.padEnd(22)} ${command.summary}\n  ${' '.repeat(22)} ${command.usage}`),
    '',
    'New here? `npm run admin -- list-orgs` lists the organisations, and show-org, list-members,',
    'list-presets and list-integrations look inside one. `npm run admin -- <command> --help` gives a',
    "command's usage with a worked example.",
    '',
  ].join('\n');

/**
 * What names the stack a command works on, taken by every command (its usage line names those it
 * needs): the table, and the deployed addresses and keys of the stack.
 */
const TARGET_FLAGS = ['table', 'region', 'endpoint', 'app-url', 'kms-key', 'code-key'];

/**
 * A flag given twice (only the last would count) or given an empty value (`--client ""`, as a
 * failed `$(...)` leaves it: taken as absent, it widened a key to every client): refused, named.
 */
const refusedValues = (tokens: ReturnType<typeof parseArgs>['tokens'], repeatable: Set<string>) => {
  const seen = new Set<string>();
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name) && !repeatable.has(token.name)) return `--${token.name} is given twice: give it once (a list is one value, comma-separated).`;
    seen.add(token.name);
    if (token.value === '') return `--${token.name} has an empty value: give a value, or leave the flag out.`;
  }
  return null;
};

/**
 * A secret may begin with a dash (`--client-secret -oDl0…`, one random secret in 64), which parseArgs
 * takes for an option and refuses as ambiguous. No command has a short option, so the word after a
 * flag that takes a value is that value unless it is itself a `--` flag: bound to it with `=`.
 */
const bindDashValues = (args: string[], takesValue: (name: string) => boolean) => {
  const bound: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const [arg, next] = [args[i]!, args[i + 1]];
    const flag = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : null;
    if (flag !== null && takesValue(flag) && next?.startsWith('-') && !next.startsWith('--')) {
      bound.push(`${arg}=${next}`);
      i++;
    } else bound.push(arg);
  }
  return bound;
};

const main = async () => {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || HELP_FLAGS.has(name)) {
    process.stdout.write(help());
    return;
  }
  const command = ALL_COMMANDS[name];
  if (!command) {
    process.stderr.write(unknownCommand(name, Object.keys(ALL_COMMANDS)));
    process.exitCode = 2;
    return;
  }
  if (rest.some((arg) => HELP_FLAGS.has(arg) && arg !== 'help')) {
    process.stdout.write(commandHelp(name, command));
    return;
  }
  // The names come from the command's own usage line (another command's flag is unknown here: a
  // `--client-id` meant as `--client` must not make a key for every client); a flag takes a value
  // unless its usage writes it alone, `[--json]`.
  const names = new Set([...TARGET_FLAGS, ...flagsOf(command)]);
  const switches = new Set(switchesOf(command));
  // A flag its usage marks `(repeatable)` (set-integration's --field) may be given more than once; every other flag once.
  const repeatable = new Set(repeatablesOf(command));
  const options = Object.fromEntries([...names].map((flag) => [flag, { type: switches.has(flag) ? ('boolean' as const) : ('string' as const), multiple: repeatable.has(flag) }]));
  let values: Record<string, unknown>;
  try {
    const args = bindDashValues(rest, (flag) => names.has(flag) && !switches.has(flag));
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: false, tokens: true });
    values = parsed.values;
    const refusal = refusedValues(parsed.tokens, repeatable);
    if (refusal) {
      process.stderr.write(`${refusal} Run \`npm run admin -- ${name} --help\` for its usage.\n`);
      process.exitCode = 2;
      return;
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && code !== 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw error;
    const message = (error as Error).message;
    process.stderr.write(code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOption(message, name, command) : unexpectedArgument(message, name, command, rest));
    process.exitCode = 2;
    return;
  }
  const flags = values as Flags;
  const target = await openTarget({
    table: typeof flags.table === 'string' ? flags.table : undefined,
    region: typeof flags.region === 'string' ? flags.region : undefined,
    endpoint: typeof flags.endpoint === 'string' ? flags.endpoint : undefined,
    dataDir: process.env.DATA_DIR ?? join(process.cwd(), '.data'),
  });
  try {
    const printed = resultText(await command.run(target.admin, flags, target.context), flags);
    process.stderr.write(printed.stderr);
    process.stdout.write(printed.stdout);
  } finally {
    await target.close();
  }
};

main().catch((error) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) process.stderr.write(`${error.message}\n`);
  else if (error instanceof WriteConflict) process.stderr.write('That conflicts with an existing record (for example a member with this email).\n');
  else if (error instanceof ApiError) {
    const fields = Object.entries(error.errors ?? {}).map(([field, messages]) => `  ${field}: ${messages.join(' ')}`);
    process.stderr.write([error.message, ...fields].join('\n') + '\n');
  }
  else process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
});
