import { eventId } from '#core/events.ts';
import { addressForLookup } from '#core/email-address.ts';
import { isId } from '#core/ids.ts';
import { PLANS, ROLES } from '#core/model.ts';
import type { ApiKey, Plan, Role } from '#core/model.ts';
import { apiKeyView, newestFirst } from '#core/use-cases/api-keys.ts';
import { identityKeyView } from '#core/member-access.ts';
import { managedMemberView } from '#core/use-cases/member-keys.ts';
import { policyView } from '#core/use-cases/organisation/policy.ts';
import { presetView, templateView } from '#core/use-cases/organisation/presets.ts';
import type { AdminStore } from '#store/admin-store.ts';
import type { CommandContext } from './target.ts';
import { recipientRefresher } from './request-commands.ts';
import { EXAMPLE } from './example-values.ts';
import { withIdentityKey } from './identity-key-file.ts';
import { organisationOf } from './organisation-flag.ts';
import { rateLimitsView } from '#core/rate-limits-view.ts';
import { clientOfOrganisation, newOrganisationView, teamOfOrganisation } from './record-views.ts';

import { optionalText, text, UsageError, type Flags } from './flags.ts';
export { text, UsageError, type Flags };

export interface Command {
  summary: string;
  usage: string;
  /**
   * Worked examples, the flags after `npm run admin -- <command>` (`<command> --help` prints them
   * whole): a newcomer copies an example before reading a usage line.
   */
  examples: string[];
  /** `context` is the table the command works on, for commands that need more than the AdminStore. */
  run(admin: AdminStore, flags: Flags, context: CommandContext): Promise<unknown>;
}


/** Keys as the member application shows them (never the hash): snake_case, the client by name, the state now. */
const keyViews = async (admin: AdminStore, orgId: string, apiKeys: ApiKey[]) => {
  const clients = new Map((await admin.directory.listClients(orgId)).map((client) => [client.id, client]));
  return apiKeys.map((apiKey) => apiKeyView(apiKey, clients, new Date()));
};

const list = (value: string | undefined) => (value ? value.split(',').map((v) => v.trim()).filter(Boolean) : undefined);
const oneOf = <T extends string>(value: string, allowed: readonly T[], name: string): T => {
  if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
};
const integer = (value: string | undefined, name: string) => {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
};
/** Digits become a number; anything else is passed on as given, for the rule to refuse by field. */
const minutes = (value: string | undefined) => (value !== undefined && /^[0-9]+$/.test(value) ? Number(value) : value);
/** true or false as the usage lines write them (any other word is refused, not read as false). */
const bool = (value: Flags[string], name: string) => {
  if (value === undefined || value === true) return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`--${name} must be true or false`);
};


const memberIdByEmailOrId = async (admin: AdminStore, orgId: string, ref: string) => {
  const members = await admin.directory.listMembers(orgId);
  const member = members.find((m) => m.id === ref || m.email === addressForLookup(ref));
  if (!member) throw new UsageError(`no member ${ref}`);
  return member.id;
};

/**
 * A team by its id, or by its name as the application shows it (no command lists teams; create-team
 * prints the id). An id goes to the rule as it is, which refuses an unknown one as the application
 * does; two teams may share a name, and then only the id will do.
 */
/** approve-key and refuse-key: the member's replaced key decided, only the one checked when --fingerprint is given; the member as the application lists them. */
const decideKey = async (admin: AdminStore, flags: Flags, decision: 'approve' | 'refuse') => {
  const orgId = text(flags, 'org');
  const memberId = await memberIdByEmailOrId(admin, orgId, text(flags, 'member'));
  await admin.decideIdentityKey(orgId, memberId, decision, optionalText(flags, 'fingerprint'));
  return managedMemberView((await admin.directory.getMember(orgId, memberId))!);
};

/** disable-member and enable-member: the change, then the member's live requests' needs_relink and unrecoverable refreshed; the member as listed. */
const setActive = async (admin: AdminStore, flags: Flags, context: CommandContext, active: boolean) => {
  const orgId = text(flags, 'org');
  const refresh = recipientRefresher(admin, flags, context);
  const memberId = await memberIdByEmailOrId(admin, orgId, text(flags, 'member'));
  const member = await admin.setMemberActive(orgId, memberId, active);
  await refresh(orgId, memberId);
  return managedMemberView(member);
};

const teamIdByIdOrName = async (admin: AdminStore, orgId: string, ref: string) => {
  if (isId(ref)) return ref;
  const named = (await admin.directory.listTeams(orgId)).filter((team) => team.name === ref);
  if (named.length === 0) throw new UsageError(`no team called "${ref}"`);
  if (named.length > 1) throw new UsageError(`${named.length} teams are called "${ref}": give the id of one (${named.map((team) => team.id).join(', ')})`);
  return named[0]!.id;
};

export const COMMANDS: Record<string, Command> = {
  'create-org': {
    summary: 'create an organisation (with its default client)',
    usage: '--name NAME [--plan free|team|business]',
    examples: ['--name "Acme IT" --plan team'],
    run: async (admin, f) => newOrganisationView(await admin.createOrganisation({ name: text(f, 'name'), plan: oneOf(optionalText(f, 'plan') ?? 'team', PLANS, 'plan') as Plan })),
  },
  'add-member': {
    summary: 'add a member, optionally with an identity key',
    usage: '--org ORG_ID --name NAME --email EMAIL [--role owner|admin|member] [--public-key FILE | --generate-key PRIVATE_KEY_FILE]',
    examples: [
      `--org ${EXAMPLE.org} --name "Ann Admin" --email ann@acme.example --role admin --generate-key .data/keys/ann.pem`,
      `--org ${EXAMPLE.org} --name "Bob Tech" --email bob@acme.example --public-key bob-public.pem`,
    ],
    run: async (admin, f) => {
      const input = { orgId: text(f, 'org'), name: text(f, 'name'), email: text(f, 'email'), role: oneOf(optionalText(f, 'role') ?? 'member', ROLES, 'role') as Role };
      return managedMemberView(await withIdentityKey(f, (identityKey) => admin.addMember({ ...input, identityKey })));
    },
  },
  'set-identity-key': {
    summary: "register or replace a member's identity key (a replacement awaits approval)",
    usage: '--org ORG_ID --member EMAIL_OR_ID (--public-key FILE | --generate-key PRIVATE_KEY_FILE) [--app-url URL]',
    examples: [`--org ${EXAMPLE.org} --member ann@acme.example --public-key ann-new-public.pem`],
    run: async (admin, f, context) => {
      const orgId = text(f, 'org');
      const refresh = recipientRefresher(admin, f, context);
      if (!optionalText(f, 'public-key') && !optionalText(f, 'generate-key')) throw new UsageError('--public-key or --generate-key is required');
      const memberId = await memberIdByEmailOrId(admin, orgId, text(f, 'member'));
      const result = await withIdentityKey(f, (key) => admin.setIdentityKey(orgId, memberId, key!));
      await refresh(orgId, memberId);
      // As the application shows a member's key (snake_case).
      return identityKeyView(result);
    },
  },
  'approve-key': {
    summary: "approve a member's replaced identity key",
    usage: '--org ORG_ID --member EMAIL_OR_ID [--fingerprint HEX (the key you checked with the member: another awaiting approval is refused)]',
    examples: [`--org ${EXAMPLE.org} --member ann@acme.example`],
    run: (admin, f) => decideKey(admin, f, 'approve'),
  },
  'refuse-key': {
    summary: "refuse a member's replaced identity key (nothing is sealed to it; their next key waits for approval)",
    usage: '--org ORG_ID --member EMAIL_OR_ID [--fingerprint HEX (only that key: another awaiting approval is left alone)]',
    examples: [`--org ${EXAMPLE.org} --member ann@acme.example --fingerprint 3f2a...`],
    run: (admin, f) => decideKey(admin, f, 'refuse'),
  },
  'disable-member': {
    summary: 'disable a member (signed out at once, left out of new requests)',
    usage: '--org ORG_ID --member EMAIL_OR_ID [--app-url URL]',
    examples: [`--org ${EXAMPLE.org} --member bob@acme.example`, `--org ${EXAMPLE.org} --member bob@acme.example --app-url ${EXAMPLE.appUrl} --table ${EXAMPLE.table} --region ${EXAMPLE.region}`],
    run: (admin, f, context) => setActive(admin, f, context, false),
  },
  'enable-member': {
    summary: 'enable a disabled member again (they can sign in and receive requests)',
    usage: '--org ORG_ID --member EMAIL_OR_ID [--app-url URL]',
    examples: [`--org ${EXAMPLE.org} --member bob@acme.example`],
    run: (admin, f, context) => setActive(admin, f, context, true),
  },
  'recover-org': {
    summary: 'break-glass: make EMAIL an active owner again (or add them), with an optional verified key; emits org_recovery.used',
    usage: '--org ORG_ID --email EMAIL --reason TEXT [--name NAME] [--public-key FILE | --generate-key PRIVATE_KEY_FILE] [--app-url URL]',
    examples: [`--org ${EXAMPLE.org} --email nina@acme.example --reason "Ticket 4711: sole owner left" --name "Nina Owner" --generate-key .data/keys/nina.pem`],
    run: async (admin, f, context) => {
      const orgId = text(f, 'org');
      const refresh = recipientRefresher(admin, f, context);
      const asked = { orgId, email: text(f, 'email'), reason: text(f, 'reason'), name: optionalText(f, 'name') };
      const { member, createdMember, entry } = await withIdentityKey(f, (identityKey) => admin.recoverOrganisation({ ...asked, identityKey }));
      // Enabled again, or given a new key: their requests' needs_relink and unrecoverable follow,
      // as after enabling a member or setting a key.
      if (!createdMember) await refresh(orgId, member.id);
      return {
        recovered: true,
        organisation_id: orgId,
        created_member: createdMember,
        member: {
          membership_id: member.id,
          name: member.name,
          email: member.email,
          role: member.role,
          active: member.active,
          identity_key: identityKeyView(member.identityKey),
        },
        event: { id: eventId(entry.seq), type: entry.type, occurred_at: entry.occurredAt },
      };
    },
  },
  'create-client': {
    summary: 'create a client',
    usage: '--org ORG_ID --name NAME',
    examples: [`--org ${EXAMPLE.org} --name "Customer Ltd"`],
    run: async (admin, f) => {
      const orgId = text(f, 'org');
      return clientOfOrganisation(admin, orgId, await admin.createClient(orgId, text(f, 'name')));
    },
  },
  'create-team': {
    summary: 'create a team of members',
    usage: '--org ORG_ID --name NAME [--members EMAIL_OR_ID,...]',
    examples: [`--org ${EXAMPLE.org} --name "Service desk" --members ann@acme.example,bob@acme.example`],
    run: async (admin, f) => {
      const orgId = text(f, 'org');
      const refs = list(optionalText(f, 'members')) ?? [];
      const ids = await Promise.all(refs.map((ref) => memberIdByEmailOrId(admin, orgId, ref)));
      return teamOfOrganisation(admin, orgId, await admin.createTeam(orgId, text(f, 'name'), ids));
    },
  },
  'rename-team': {
    summary: 'rename a team, found by its id or its name',
    usage: '--org ORG_ID --team TEAM_ID_OR_NAME --name NAME',
    examples: [`--org ${EXAMPLE.org} --team "Service desk" --name "Service desk (EU)"`, `--org ${EXAMPLE.org} --team ${EXAMPLE.team} --name "Night shift"`],
    run: async (admin, f) => {
      const orgId = text(f, 'org');
      return teamOfOrganisation(admin, orgId, await admin.renameTeam(orgId, await teamIdByIdOrName(admin, orgId, text(f, 'team')), text(f, 'name')));
    },
  },
  'create-template': {
    summary: 'create a request template',
    usage: '--org ORG_ID --name NAME [--justification TEXT]',
    examples: [`--org ${EXAMPLE.org} --name "VPN reset" --justification "Needed to set up your VPN"`],
    run: async (admin, f) => templateView(await admin.createTemplate(text(f, 'org'), text(f, 'name'), optionalText(f, 'justification') ?? null)),
  },
  'save-preset': {
    summary: 'create or replace a preset (saved request defaults; Team plan and above)',
    usage:
      '--org ORG_ID --slug SLUG --name NAME [--justification TEXT] [--ttl MINUTES] [--verification MODE] [--template ID] [--recipients EMAIL,...] [--delivery none|email|sms|ticket_reply] [--allow-attachments true|false] [--requester-from-ticket true|false] [--fallback-requester EMAIL]',
    examples: [
      `--org ${EXAMPLE.org} --slug standard --name Standard --justification "Needed to complete your ticket" --ttl 1440 --verification challenge --recipients ann@acme.example`,
      `--org ${EXAMPLE.org} --slug vpn --name "VPN password" --template ${EXAMPLE.template} --requester-from-ticket true --fallback-requester ann@acme.example`,
    ],
    // The flags become the body the member application's presets page sends; the rule judges both alike.
    run: async (admin, f) => {
      const delivery = optionalText(f, 'delivery');
      return presetView(await admin.putPreset(text(f, 'org'), {
        slug: text(f, 'slug'),
        name: text(f, 'name'),
        defaults: {
          justification: optionalText(f, 'justification'),
          ttl_minutes: minutes(optionalText(f, 'ttl')),
          verification_mode: optionalText(f, 'verification'),
          template_id: optionalText(f, 'template'),
          recipients: list(optionalText(f, 'recipients')),
          delivery: delivery === undefined ? undefined : { method: delivery },
          allow_attachments: bool(f['allow-attachments'], 'allow-attachments'),
        },
        requester_from_ticket: bool(f['requester-from-ticket'], 'requester-from-ticket'),
        fallback_requester: optionalText(f, 'fallback-requester') ?? null,
      }));
    },
  },
  'set-policy': {
    summary: "change the organisation's policy",
    usage:
      '--org ORG_ID [--ttl-options 60,1440,...] [--default-ttl M] [--min-verification MODE] [--default-verification MODE] [--link-lifetime M] [--close-statuses resolved,closed] [--trust-unverified-webhooks true|false] [--grace-minutes M] [--revoke-unsubmitted-on-close true|false] [--rotation-signal true|false]',
    examples: [
      `--org ${EXAMPLE.org} --ttl-options 60,1440 --default-ttl 60 --min-verification challenge`,
      `--org ${EXAMPLE.org} --trust-unverified-webhooks true --close-statuses resolved,closed --grace-minutes 30`,
    ],
    // The flags become the changes the member application's policy page sends; the rule judges both alike.
    run: async (admin, f) => {
      const { policy } = await admin.changePolicy(text(f, 'org'), {
        ttl_options_minutes: list(optionalText(f, 'ttl-options'))?.map(minutes),
        default_ttl_minutes: minutes(optionalText(f, 'default-ttl')),
        minimum_verification: optionalText(f, 'min-verification'),
        default_verification: optionalText(f, 'default-verification'),
        link_lifetime_minutes: minutes(optionalText(f, 'link-lifetime')),
        ticket: {
          close_statuses: list(optionalText(f, 'close-statuses')),
          trust_unverified_webhooks: bool(f['trust-unverified-webhooks'], 'trust-unverified-webhooks'),
          grace_period_minutes: minutes(optionalText(f, 'grace-minutes')),
          revoke_unsubmitted_on_close: bool(f['revoke-unsubmitted-on-close'], 'revoke-unsubmitted-on-close'),
        },
        rotation_signal: bool(f['rotation-signal'], 'rotation-signal'),
      });
      return policyView(policy);
    },
  },
  'set-plan': {
    summary: "change the organisation's plan",
    usage: '--org ORG_ID --plan free|team|business',
    examples: [`--org ${EXAMPLE.org} --plan business`],
    run: async (admin, f) => {
      await admin.setPlan(text(f, 'org'), oneOf(text(f, 'plan'), PLANS, 'plan'));
      return { plan: f.plan };
    },
  },
  'set-rate-limits': {
    summary: 'set the per-key and per-organisation calls per minute',
    usage: '--org ORG_ID --per-key N --per-org N',
    examples: [`--org ${EXAMPLE.org} --per-key 600 --per-org 1200`],
    run: async (admin, f) => {
      const limits = { perKeyPerMinute: integer(text(f, 'per-key'), 'per-key')!, perOrgPerMinute: integer(text(f, 'per-org'), 'per-org')! };
      // A limit of 0 would refuse every call of every key: stopping an organisation's API is done by revoking its keys or its plan.
      for (const [flag, value] of [['per-key', limits.perKeyPerMinute], ['per-org', limits.perOrgPerMinute]] as const) {
        if (value < 1) throw new UsageError(`--${flag} must be at least 1 call a minute`);
      }
      await admin.setRateLimits(text(f, 'org'), limits);
      return rateLimitsView(limits);
    },
  },
  'create-key': {
    summary: 'create an API key (printed once; only its hash is stored)',
    usage: '--org ORG_ID --name NAME --scopes SCOPE,... [--client CLIENT_ID] [--allow ADDRESS_OR_CIDR,...] [--expires ISO_DATE]',
    examples: [
      `--org ${EXAMPLE.org} --name "PSA integration" --scopes requests:read,requests:write`,
      `--org ${EXAMPLE.org} --name "Customer portal" --scopes requests:read --client ${EXAMPLE.client} --allow 203.0.113.0/24 --expires 2027-06-30T00:00:00Z`,
    ],
    // The scopes, client, allowlist and expiry are judged by the rule the member app's API keys page uses too.
    run: async (admin, f) => {
      const { apiKey, secret } = await admin.createApiKey({
        orgId: text(f, 'org'),
        name: text(f, 'name'),
        scopes: list(optionalText(f, 'scopes')) ?? [],
        clientId: optionalText(f, 'client') ?? null,
        allowlist: list(optionalText(f, 'allow')) ?? [],
        expiresAt: optionalText(f, 'expires') ?? null,
      });
      return { key: secret, note: 'Shown once: store it now.', ...(await keyViews(admin, apiKey.orgId, [apiKey]))[0] };
    },
  },
  'list-keys': {
    summary: "list an organisation's API keys (never the keys themselves)",
    usage: '--org ORG_ID',
    examples: [`--org ${EXAMPLE.org}`],
    // Newest first, as the application lists them; an organisation that does not exist is named, not listed empty.
    run: async (admin, f) => {
      const { id } = await organisationOf(admin, f);
      return keyViews(admin, id, newestFirst(await admin.apiKeys.listForOrganisation(id)));
    },
  },
  'revoke-key': {
    summary: 'revoke an API key by id or prefix (refused from the next call on)',
    usage: '--org ORG_ID --key KEY_ID_OR_PREFIX',
    examples: [`--org ${EXAMPLE.org} --key chs_live_Xk3p9Q`, `--org ${EXAMPLE.org} --key ${EXAMPLE.apiKey}`],
    run: async (admin, f) => {
      const orgId = text(f, 'org');
      return { revoked: true, ...(await keyViews(admin, orgId, [await admin.revokeApiKey(orgId, text(f, 'key'))]))[0] };
    },
  },
};
