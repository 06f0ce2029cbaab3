import { parseStatusMap } from '#core/inbound/status-words.ts';
import { OPERATOR_ACTOR } from '#core/model.ts';
import {
  configureIntegration,
  connectIntegration,
  integrationActivity,
  rotateIntegrationSecrets,
  type IntegrationChanges,
  type IntegrationDeps,
} from '#core/use-cases/integrations/manage-integration.ts';
import { checkHelpdeskTicket, connectHelpdesk } from '#core/use-cases/integrations/connect-helpdesk.ts';
import { SealedHelpdeskConnector } from '#adapters/helpdesks/helpdesk-connector.ts';
import { HELPDESK_CALL_TIMEOUT_MS } from '../../lambdas/helpdesk-wiring.ts';
import { DynamoIntegrations } from '#store/integrations.ts';
import type { AdminStore } from '#store/admin-store.ts';
import { text as required, UsageError, type Command, type Flags } from './commands.ts';
import { optionalText } from './flags.ts';
import { sealerFor } from './secret-keys.ts';
import type { CommandContext } from './target.ts';
import { authChangeOf } from './integration-auth.ts';
import { EXAMPLE } from './example-values.ts';
import { Readable } from './readable.ts';
import { shellExports } from '#local/shell-exports.ts';

/** Path flags take alternatives separated by commas: the first present in a post wins. */
const paths = (value: string | undefined) => (value === undefined ? undefined : value.split(',').map((path) => path.trim()).filter(Boolean));

/** `printsUrls`: the command shows the inbound URLs, which are built on the web application's address. */
const depsFor = async (admin: AdminStore, flags: Flags, context: CommandContext, printsUrls = false): Promise<IntegrationDeps> => {
  const appUrl = optionalText(flags, 'app-url') ?? context.appUrl ?? (printsUrls ? null : '');
  if (appUrl === null) throw new UsageError('--app-url URL (the web application address the stack was deployed with) is required for a deployed table');
  return {
    integrations: new DynamoIntegrations(context.db, context.tableName, context.audit),
    directory: admin.directory,
    sealer: await sealerFor(flags, context),
    clock: context.clock,
    urls: { appUrl: appUrl.replace(/\/+$/, '') },
  };
};

/**
 * The helpdesk connection's dependencies: helpdesk URLs follow the webhook targets' rules, with
 * http://127.0.0.1 allowed only against the local table (as `npm start` allows loopback receivers).
 */
const helpdeskDepsFor = async (admin: AdminStore, flags: Flags, context: CommandContext) => ({
  ...(await depsFor(admin, flags, context)),
  webhookPolicy: { allowLoopback: context.localEngine },
});

const list = (value: string | undefined) => (value === undefined ? undefined : value.split(',').map((item) => item.trim()).filter(Boolean));

/** A flag of status ids separated by commas, as numbers. */
const statusIdsOf = (flags: Flags, name: string, example: string) => {
  const ids = list(optionalText(flags, name));
  if (ids && ids.some((id) => !/^[0-9]{1,9}$/.test(id))) throw new UsageError(`--${name} takes whole numbers, e.g. ${example}`);
  return ids?.map(Number);
};

/** Each helpdesk credential (HELPDESKS[adapter].credentials) and the flag it is given with. */
const CREDENTIAL_FLAGS = {
  client_id: 'client-id',
  client_secret: 'client-secret',
  email: 'email',
  api_token: 'api-token',
  username: 'username',
  password: 'password',
  company_id: 'company-id',
  public_key: 'public-key',
  private_key: 'private-key',
  integration_code: 'integration-code',
} as const;

const helpdeskInputOf = (adapter: string, flags: Flags) => ({
  adapter,
  url: optionalText(flags, 'helpdesk-url'),
  credentials: Object.fromEntries(Object.entries(CREDENTIAL_FLAGS).map(([field, flag]) => [field, optionalText(flags, flag)])),
  closedStatusNames: list(optionalText(flags, 'closed-status-names')),
  resolvedStatusIds: statusIdsOf(flags, 'resolved-status-ids', '8,18'),
  closedStatusIds: statusIdsOf(flags, 'closed-status-ids', '5,14'),
  tenant: optionalText(flags, 'tenant') ?? null,
});

/** The flags of a helpdesk connection (`--adapter`), which is made again whole each time: those helpdeskInputOf reads. */
const HELPDESK_FLAGS = ['helpdesk-url', ...Object.values(CREDENTIAL_FLAGS), 'closed-status-names', 'resolved-status-ids', 'closed-status-ids', 'tenant'];
/** The flags that change the integration itself. */
const SETTING_FLAGS = [
  'name', 'enabled', 'recipe', 'ticket-id-path', 'status-path', 'status-map', 'remove-status-word', 'field', 'auth',
  'header-name', 'header-value', 'signing-secret', 'generate-secret', 'default-preset', 'rate-limit',
];

/**
 * One call of set-integration either connects the helpdesk or changes the integration's settings:
 * a flag of the other kind would be dropped unseen (a secret "rotated" without --adapter stayed the
 * old one), so it is refused by name.
 */
const refuseOtherKind = (flags: Flags, connecting: boolean) => {
  const stray = (connecting ? SETTING_FLAGS : HELPDESK_FLAGS).find((name) => flags[name] !== undefined);
  if (stray === undefined) return;
  throw new UsageError(
    connecting
      ? `--${stray} changes the integration's settings, not its helpdesk connection: run set-integration again without --adapter for it`
      : `--${stray} is a setting of the helpdesk connection: give it with --adapter and every other setting of the connection (the connection is made again whole)`,
  );
};

const SHOWN_ONCE = 'Shown once: the URLs hold their secrets; store them in the helpdesk now.';

/**
 * The integration and its URLs as a person reads them, or with `--env` as shell lines that set
 * INTEGRATION, WEBHOOK_URL and TRIGGER_URL (`eval "$(npm run -s admin -- connect-integration ... --env)"`),
 * the names the docs' shell examples use; the JSON follows the lines, or alone with --json.
 */
const shownUrls = (flags: Flags, shown: { integration: { id: string }; webhook_url: string; trigger_url: string }, lines: string[]) => {
  const result = { note: SHOWN_ONCE, ...shown };
  if (flags.env !== true) return { lines, ...result };
  const variables = { INTEGRATION: shown.integration.id, WEBHOOK_URL: shown.webhook_url, TRIGGER_URL: shown.trigger_url };
  return new Readable(`${shellExports(variables).join('\n')}\n`, result);
};

/** `--field subject.name=path` (repeatable, or comma-separated pairs); alternatives with `|`. */
const fieldsOf = (flags: Flags): IntegrationChanges['fields'] => {
  const raw = flags.field;
  if (raw === undefined) return undefined;
  const pairs = (Array.isArray(raw) ? raw : [raw]).flatMap((value) => String(value).split(','));
  const fields: Record<string, string[]> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals < 1) throw new UsageError(`--field takes name=path, e.g. subject.name=ticket.requester.name (got "${pair}")`);
    fields[pair.slice(0, equals).trim()] = pair.slice(equals + 1).split('|').map((path) => path.trim()).filter(Boolean);
  }
  return fields;
};

/**
 * `--remove-status-word WORD` (repeatable, or words separated by commas as in --status-map, which
 * no word can hold): the words to take out of the status map. The use case judges them, so a word
 * the map does not hold is refused as the app refuses it.
 */
const removedWordsOf = (flags: Flags): string[] | undefined => {
  const raw = flags['remove-status-word'];
  if (raw === undefined) return undefined;
  return (Array.isArray(raw) ? raw : [raw]).flatMap((value) => String(value).split(',')).map((word) => word.trim()).filter(Boolean);
};

/** Every change but the hardening (integration-auth.ts), which may need the integration read first. */
const changesOf = (flags: Flags): Omit<IntegrationChanges, 'auth'> => {
  const enabled = optionalText(flags, 'enabled');
  if (enabled !== undefined && enabled !== 'true' && enabled !== 'false') throw new UsageError('--enabled must be true or false');
  const rateLimit = optionalText(flags, 'rate-limit');
  if (rateLimit !== undefined && !/^[0-9]{1,6}$/.test(rateLimit)) throw new UsageError('--rate-limit must be a whole number');
  const statusMap = optionalText(flags, 'status-map');
  let parsedMap;
  try {
    parsedMap = statusMap === undefined ? undefined : parseStatusMap(statusMap);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const defaultPreset = optionalText(flags, 'default-preset');
  return {
    name: optionalText(flags, 'name'),
    enabled: enabled === undefined ? undefined : enabled === 'true',
    recipe: optionalText(flags, 'recipe'),
    ticketIdPaths: paths(optionalText(flags, 'ticket-id-path')),
    statusPaths: paths(optionalText(flags, 'status-path')),
    statusMap: parsedMap,
    removeStatusWords: removedWordsOf(flags),
    fields: fieldsOf(flags),
    defaultPreset: defaultPreset === undefined ? undefined : defaultPreset === 'none' ? null : defaultPreset,
    rateLimitPerMinute: rateLimit === undefined ? undefined : Number(rateLimit),
  };
};

export const INTEGRATION_COMMANDS: Record<string, Command> = {
  'connect-integration': {
    summary: 'connect a generic ticketing integration; prints its webhook and trigger URLs once',
    usage: '--org ORG_ID --name NAME [--client CLIENT_ID] [--recipe zendesk|jira|freshdesk|servicenow|zammad|halopsa|connectwise|autotask] [--app-url URL] [--kms-key KEY_ARN] [--env] [--json]',
    examples: [
      `--org ${EXAMPLE.org} --name Zendesk --recipe zendesk`,
      `--org ${EXAMPLE.org} --name Jira --recipe jira --env`,
      `--org ${EXAMPLE.org} --name "Customer Ltd Jira" --recipe jira --client ${EXAMPLE.client} --app-url ${EXAMPLE.appUrl} --kms-key ${EXAMPLE.sealingKeyArn} --table ${EXAMPLE.table} --region ${EXAMPLE.region}`,
    ],
    run: async (admin, f, context) => {
      const connected = await connectIntegration(await depsFor(admin, f, context, true), OPERATOR_ACTOR, {
        orgId: required(f, 'org'),
        name: required(f, 'name'),
        clientId: optionalText(f, 'client') ?? null,
        recipe: optionalText(f, 'recipe') ?? null,
      });
      return shownUrls(f, connected, [`Integration: ${connected.integration.id}`, `Webhook URL: ${connected.webhook_url}`, `Trigger URL: ${connected.trigger_url}`]);
    },
  },
  'set-integration': {
    summary: "change an integration: enabled, mapping, status map, hardening, default preset, rate limit; or connect its helpdesk's API (--adapter)",
    usage:
      "--org ORG_ID --integration ID [--name NAME] [--enabled true|false] [--recipe NAME] [--ticket-id-path PATH[,PATH]] [--status-path PATH[,PATH]] [--status-map 'Solved=closed,4=resolved'] [--remove-status-word WORD (repeatable)] [--field subject.name=PATH (repeatable)] [--auth none|header|hmac|zendesk|hub-sha256|hub-sha1] [--header-name NAME] [--header-value VALUE] [--signing-secret SECRET] [--generate-secret] [--default-preset SLUG|none] [--rate-limit N] [--kms-key KEY_ARN] [--json]\n" +
      '  or: --org ORG_ID --integration ID --adapter zendesk|jira|halopsa|servicenow|zammad|freshdesk|freshservice|connectwise|autotask|none [--helpdesk-url URL] [--client-id ID --client-secret SECRET (zendesk, halopsa)] [--email EMAIL (jira)] [--api-token TOKEN (jira, zammad, freshdesk, freshservice)] [--username USER --password PASSWORD (servicenow; autotask: its API user key and secret)] [--company-id ID --public-key KEY --private-key KEY --client-id ID (connectwise)] [--integration-code CODE (autotask)] [--closed-status-names NAME[,NAME] (jira)] [--tenant NAME] [--resolved-status-ids N[,N] (halopsa)] [--closed-status-ids N[,N] (autotask)] [--kms-key KEY_ARN]',
    examples: [
      `--org ${EXAMPLE.org} --integration ${EXAMPLE.integration} --auth zendesk --signing-secret '<signing secret from the Zendesk webhook page>'`,
      `--org ${EXAMPLE.org} --integration ${EXAMPLE.integration} --auth header --header-name X-Handoff-Secret --generate-secret`,
      `--org ${EXAMPLE.org} --integration ${EXAMPLE.integration} --status-map 'Solved=closed,4=resolved' --default-preset vpn --rate-limit 60`,
      `--org ${EXAMPLE.org} --integration ${EXAMPLE.integration} --remove-status-word 'pending reminder' --remove-status-word merged`,
      `--org ${EXAMPLE.org} --integration ${EXAMPLE.integration} --adapter zendesk --helpdesk-url https://acme.zendesk.com --client-id handoff --client-secret '<OAuth client secret>'`,
    ],
    run: async (admin, f, context) => {
      const adapter = optionalText(f, 'adapter');
      refuseOtherKind(f, adapter !== undefined);
      if (adapter !== undefined) return connectHelpdesk(await helpdeskDepsFor(admin, f, context), OPERATOR_ACTOR, required(f, 'org'), required(f, 'integration'), helpdeskInputOf(adapter, f));
      const deps = await depsFor(admin, f, context);
      const [orgId, integrationId] = [required(f, 'org'), required(f, 'integration')];
      const changes = changesOf(f);
      const { auth, generated } = await authChangeOf(f, () => deps.integrations.get(orgId, integrationId));
      const view = await configureIntegration(deps, OPERATOR_ACTOR, orgId, integrationId, { ...changes, auth });
      if (!generated) return view;
      return {
        lines: [`${generated.label}: ${generated.secret}`],
        secret: generated.secret,
        note: 'Shown once: set it in the helpdesk now; posts without it are refused from now on.',
        ...view,
      };
    },
  },
  'check-integration': {
    summary: "read one ticket through the integration's helpdesk connection: the helpdesk's status and the status it maps to",
    usage: '--org ORG_ID --integration ID --ticket EXTERNAL_ID [--kms-key KEY_ARN] [--json]',
    examples: [`--org ${EXAMPLE.org} --integration ${EXAMPLE.integration} --ticket 35436`],
    run: async (admin, f, context) => {
      const deps = await helpdeskDepsFor(admin, f, context);
      const checked = await checkHelpdeskTicket(
        { ...deps, directory: admin.directory, helpdesks: new SealedHelpdeskConnector(deps.sealer, { allowLoopback: deps.webhookPolicy.allowLoopback, timeoutMs: HELPDESK_CALL_TIMEOUT_MS }) },
        required(f, 'org'),
        required(f, 'integration'),
        required(f, 'ticket'),
      );
      const lines = checked.ok
        ? [`Ticket ${checked.ticket_id}: ${checked.helpdesk} says "${checked.vendor_status}", which is ${checked.status}${checked.counts_as_closed ? ' (counts as closed: a close would destroy)' : ''}.`]
        : [`Ticket ${checked.ticket_id}: the read failed (${checked.reason}): ${checked.message}`];
      return { lines, ...checked };
    },
  },
  'rotate-integration-secret': {
    summary: "replace both of an integration's URL secrets; the old URLs answer 404 at once",
    usage: '--org ORG_ID --integration ID [--app-url URL] [--env] [--json]',
    examples: [`--org ${EXAMPLE.org} --integration ${EXAMPLE.integration}`],
    run: async (admin, f, context) => {
      const rotated = await rotateIntegrationSecrets(await depsFor(admin, f, context, true), OPERATOR_ACTOR, required(f, 'org'), required(f, 'integration'));
      return shownUrls(f, rotated, [`Webhook URL: ${rotated.webhook_url}`, `Trigger URL: ${rotated.trigger_url}`]);
    },
  },
  'integration-activity': {
    summary: "an integration's recent posts that could not be used, newest first, with the reasons",
    usage: '--org ORG_ID --integration ID',
    examples: [`--org ${EXAMPLE.org} --integration ${EXAMPLE.integration}`],
    run: async (admin, f, context) => integrationActivity(await depsFor(admin, f, context), required(f, 'org'), required(f, 'integration')),
  },
  'set-default-preset': {
    summary: "the preset a ticket trigger uses when the post names none (the client's, else the organisation's; Team plan and above, none clears it on any plan)",
    usage: '--org ORG_ID [--client CLIENT_ID] --preset SLUG|none',
    examples: [`--org ${EXAMPLE.org} --preset standard`, `--org ${EXAMPLE.org} --client ${EXAMPLE.client} --preset none`],
    run: async (admin, f) => {
      const slug = required(f, 'preset');
      return admin.setDefaultPreset(required(f, 'org'), optionalText(f, 'client') ?? null, slug === 'none' ? null : slug);
    },
  },
};
