/**
 * The operator CLI: `npm run admin -- <command> [--flags]`. Works on the local table by default,
 * or on a deployed one with --table NAME --region REGION.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError, WriteConflict } from '#core/errors.ts';
import { COMMANDS, UsageError, type Command, type Flags } from './admin/commands.ts';
import { openTarget } from './admin/target.ts';
import { WEBHOOK_COMMANDS } from './admin/webhook-commands.ts';
import { INTEGRATION_COMMANDS } from './admin/integration-commands.ts';
import { SIGNING_COMMANDS } from './admin/signing-commands.ts';
import { SECRET_COMMANDS } from './admin/secret-commands.ts';
import { REQUEST_COMMANDS } from './admin/request-commands.ts';
import { commandHelp, flagsOf, HELP_FLAGS, unknownCommand, unknownOption } from './admin/command-help.ts';

/** Every command: directory, webhook, integration, signing-key and stored-secret ones. */
const ALL_COMMANDS: Record<string, Command> = { ...COMMANDS, ...REQUEST_COMMANDS, ...WEBHOOK_COMMANDS, ...INTEGRATION_COMMANDS, ...SIGNING_COMMANDS, ...SECRET_COMMANDS };

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const help = () =>
  [
    'Usage: npm run admin -- <command> [--flags] [--table NAME --region REGION]',
    '',
    'Without --table the command works on the local table (.data/, or the running npm start).',
    '',
    ...Object.entries(ALL_COMMANDS).map(([name, command]) => `  ${name.padEnd(22)} ${command.summary}\n  ${' '.repeat(22)} ${command.usage}`),
    '',
  ].join('\n');

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
  // Every flag takes a value; the names come from the commands' usage lines.
  const names = new Set(['table', 'region', 'endpoint', ...Object.values(ALL_COMMANDS).flatMap(flagsOf)]);
  // `--field` may be given more than once (set-integration); every other flag once.
  const options = Object.fromEntries([...names].map((flag) => [flag, { type: 'string' as const, multiple: flag === 'field' }]));
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: rest, options, strict: true, allowPositionals: false }));
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw error;
    process.stderr.write(unknownOption((error as Error).message, name, command));
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
    const result = await command.run(target.admin, flags, target.context);
    // A command may lead with plain lines (`Webhook URL: ...`) for a person to copy; the JSON follows.
    if (result && typeof result === 'object' && Array.isArray((result as { lines?: unknown }).lines)) {
      const { lines, ...rest } = result as { lines: string[] };
      process.stdout.write(`${lines.join('\n')}\n\n${JSON.stringify(rest, null, 2)}\n`);
    } else {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    }
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
