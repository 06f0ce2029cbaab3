import { toIntegrationView } from '#core/integration.ts';
import { byName, memberView } from '#core/member-access.ts';
import type { Organisation } from '#core/model.ts';
import { clientView } from '#core/use-cases/organisation/member-app.ts';
import { policyView } from '#core/use-cases/organisation/policy.ts';
import { presetView } from '#core/use-cases/organisation/presets.ts';
import { rateLimitsView } from '#core/rate-limits-view.ts';
import type { AdminStore } from '#store/admin-store.ts';
import { DynamoIntegrations } from '#store/integrations.ts';
import { listOrganisations } from '#store/organisation-list.ts';
import { text, UsageError, type Command, type Flags } from './commands.ts';
import { organisationOf } from './organisation-flag.ts';
import { EXAMPLE } from './example-values.ts';
import { policyFacts, rateLimitText } from './policy-words.ts';
import { Readable } from './readable.ts';
import {
  identityKeyText,
  integrationAuthText,
  integrationKindText,
  memberCountText,
  ORGANISATION_STATUS_TEXT,
  organisationStatus,
  presetDefaultsText,
  presetRequesterText,
} from './record-words.ts';
import type { CommandContext } from './target.ts';
import { factsText, tableText } from './text-layout.ts';

/**
 * The commands a newcomer finds their way with: which organisations there are, and what one holds.
 * They only read, print aligned text (or with --json the JSON, in the API's snake_case), and show
 * no secret: no API key, URL secret, sealed value or hash, and of an identity key its fingerprint.
 */



const integrationsOf = (context: CommandContext, orgId: string) => new DynamoIntegrations(context.db, context.tableName, context.audit).list(orgId);

/** Where to look next, after a summary or a list. */
const nextSteps = (invocations: string[]) => `\nMore: ${invocations.map((invocation) => `npm run admin -- ${invocation}`).join('\n      ')}\n`;

const ORG_USAGE = '--org ORG_ID [--json]';

export const DISCOVERY_COMMANDS: Record<string, Command> = {
  'list-orgs': {
    summary: 'list the organisations: id, name, plan, status (no active owner: see recover-org) and members; reads the whole table',
    usage: '[--json]',
    examples: ['', '--json', `--table ${EXAMPLE.table} --region ${EXAMPLE.region}`],
    run: async (_admin, _f, context) => {
      const listed = (await listOrganisations(context.db, context.tableName)).map(({ organisation, members, activeMembers, activeOwners }) => ({
        id: organisation.id,
        name: organisation.name,
        plan: organisation.plan,
        status: organisationStatus(activeOwners),
        member_count: members,
        active_member_count: activeMembers,
        created_at: organisation.createdAt,
      }));
      const rows = listed.map((org) => [org.id, org.name, org.plan, ORGANISATION_STATUS_TEXT[org.status], memberCountText(org.member_count, org.active_member_count)]);
      const ownerless = listed.some((org) => org.status === 'no_active_owner')
        ? '\nAn organisation with no active owner gets one with: npm run admin -- recover-org --help\n'
        : '';
      const text = tableText(['ID', 'NAME', 'PLAN', 'STATUS', 'MEMBERS'], rows, 'No organisations yet. Make one with: npm run admin -- create-org --name NAME');
      return new Readable(text + ownerless + (listed.length ? `\nLook inside one: npm run admin -- show-org --org ID\n` : ''), listed);
    },
  },
  'show-org': {
    summary: 'an organisation in short: plan, status, policy in plain words, rate limits, clients, and how many members, presets and integrations',
    usage: ORG_USAGE,
    examples: [`--org ${EXAMPLE.org}`, `--org ${EXAMPLE.org} --json`],
    run: async (admin, f, context) => {
      const org = await organisationOf(admin, f);
      const [members, clients, presets, integrations] = await Promise.all([
        admin.directory.listMembers(org.id),
        admin.directory.listClients(org.id),
        admin.directory.listPresets(org.id),
        integrationsOf(context, org.id),
      ]);
      const activeMembers = members.filter((member) => member.active);
      const status = organisationStatus(activeMembers.filter((member) => member.role === 'owner').length);
      const defaultClient = clients.find((client) => client.id === org.defaultClientId);
      const json = {
        id: org.id,
        name: org.name,
        plan: org.plan,
        status,
        created_at: org.createdAt,
        policy: policyView(org.policy),
        rate_limits: rateLimitsView(org.rateLimits),
        default_client_id: org.defaultClientId,
        default_preset: org.defaultPreset ?? null,
        member_count: members.length,
        active_member_count: activeMembers.length,
        preset_count: presets.length,
        integration_count: integrations.length,
        clients: byName(clients).map((client) => ({ ...clientView(client, org.defaultClientId), default_preset: client.defaultPreset ?? null })),
      };
      const summary = factsText([
        ['ID', org.id],
        ['Plan', org.plan],
        ['Status', status === 'active' ? 'active' : `${ORGANISATION_STATUS_TEXT[status]} (npm run admin -- recover-org gives it one)`],
        ['Created', org.createdAt],
        ['Members', memberCountText(members.length, activeMembers.length)],
        ['Presets', String(presets.length)],
        ['Integrations', String(integrations.length)],
        ['Default client', defaultClient ? `${defaultClient.name} (${defaultClient.id})` : org.defaultClientId],
        ['Default preset', org.defaultPreset ?? 'none'],
        ['Rate limits', rateLimitText(org.rateLimits)],
      ], '  ');
      const clientRows = json.clients.map((client) => [client.id, client.name, client.default ? 'yes' : '', client.default_preset ?? '-']);
      const text = [
        `${org.name}\n${summary}`,
        `Policy\n${factsText(policyFacts(org.policy), '  ')}`,
        `Clients\n${tableText(['ID', 'NAME', 'DEFAULT', 'DEFAULT PRESET'], clientRows, 'none', '  ')}`,
      ].join('\n') + nextSteps(['list-members', 'list-presets', 'list-integrations'].map((command) => `${command} --org ${org.id}`));
      return new Readable(text, json);
    },
  },
  'list-members': {
    summary: "list an organisation's members: role, active or disabled, identity key and its fingerprint, a key awaiting approval",
    usage: ORG_USAGE,
    examples: [`--org ${EXAMPLE.org}`, `--org ${EXAMPLE.org} --json`],
    run: async (admin, f) => {
      const org = await organisationOf(admin, f);
      const members = byName(await admin.directory.listMembers(org.id));
      const rows = members.map((member) => [
        member.id,
        member.name,
        member.email,
        member.role,
        member.active ? 'active' : 'disabled',
        identityKeyText(member.identityKey),
        member.identityKey?.fingerprint ?? '-',
      ]);
      const awaiting = members.find((member) => member.identityKey?.state === 'replaced_pending_approval');
      const approve = awaiting ? `\nA key awaiting approval is approved with: npm run admin -- approve-key --org ${org.id} --member ${awaiting.email}\n` : '';
      const text = tableText(['MEMBERSHIP ID', 'NAME', 'EMAIL', 'ROLE', 'STATUS', 'IDENTITY KEY', 'FINGERPRINT'], rows, `No members yet. Add one with: npm run admin -- add-member --help`);
      return new Readable(text + approve, members.map((member) => ({ ...memberView(member), active: member.active, created_at: member.createdAt })));
    },
  },
  'list-presets': {
    summary: "list an organisation's presets: slug, name, the defaults they set in short, and the requester a ticket trigger uses",
    usage: ORG_USAGE,
    examples: [`--org ${EXAMPLE.org}`, `--org ${EXAMPLE.org} --json`],
    run: async (admin, f) => {
      const org = await organisationOf(admin, f);
      const [presets, templates] = await Promise.all([admin.directory.listPresets(org.id), admin.directory.listTemplates(org.id)]);
      const byId = new Map(templates.map((template) => [template.id, template]));
      const listed = byName(presets);
      const rows = listed.map((preset) => [
        preset.slug,
        preset.name,
        presetDefaultsText(preset.defaults, byId),
        presetRequesterText(preset.requesterFromTicket ?? false, preset.fallbackRequester ?? null),
      ]);
      const defaultPreset = org.defaultPreset ? `\nThe organisation's default preset (a ticket trigger naming none): ${org.defaultPreset}\n` : '';
      const text = tableText(['SLUG', 'NAME', 'DEFAULTS', 'REQUESTER'], rows, 'No presets yet. Save one with: npm run admin -- save-preset --help');
      return new Readable(text + defaultPreset, listed.map(presetView));
    },
  },
  'list-integrations': {
    summary: "list an organisation's ticketing integrations: kind and recipe, client, enabled or disabled, hardening, and whether a helpdesk is connected",
    usage: ORG_USAGE,
    examples: [`--org ${EXAMPLE.org}`, `--org ${EXAMPLE.org} --json`],
    run: async (admin, f, context) => {
      const org = await organisationOf(admin, f);
      const [integrations, clients] = await Promise.all([integrationsOf(context, org.id), admin.directory.listClients(org.id)]);
      const clientNames = new Map(clients.map((client) => [client.id, client.name]));
      const listed = byName(integrations);
      const rows = listed.map((integration) => [
        integration.id,
        integration.name,
        integrationKindText(integration),
        integration.clientId ? (clientNames.get(integration.clientId) ?? integration.clientId) : 'all clients',
        integration.enabled ? 'enabled' : 'disabled',
        integrationAuthText(integration.auth),
        integration.helpdesk ? integration.helpdesk.adapter : 'not connected',
      ]);
      const text = tableText(['ID', 'NAME', 'KIND', 'CLIENT', 'STATUS', 'AUTH', 'HELPDESK'], rows, 'No integrations yet. Connect one with: npm run admin -- connect-integration --help');
      return new Readable(text + (listed.length ? nextSteps([`integration-activity --org ${org.id} --integration ID`, `set-integration --help`]) : ''), listed.map(toIntegrationView));
    },
  },
};
