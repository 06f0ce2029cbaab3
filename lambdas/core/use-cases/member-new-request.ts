import * as z from 'zod/mini';
import { UNKNOWN_QUERY_PARAMETER } from '../query-words.ts';
import { validationFailed, type FieldErrors } from '../errors.ts';
import { byName, clientChoices, memberActor, type MemberCaller } from '../member-access.ts';
import { VERIFICATION_MODES, type Client, type Member, type Preset, type Team, type Template } from '../model.ts';
import { planIncludes } from '../plans.ts';
import { meetsMinimum } from '../policy.ts';
import type { Directory } from '../ports.ts';
import { parseOrThrow, ulidString } from '../validation.ts';
import { createRequestFor, type CreateOptions, type CreateRequestDeps } from './create-request.ts';
import { resolveRecipients } from './resolve-recipients.ts';

/**
 * A request made in the technician's browser (docs/web-api.md, New request). The browser fetches
 * the recipients' public keys (`recipientKeys`), shows their fingerprints, computes the recipient
 * commitment itself and sends it with the request; the service resolves the recipients again and
 * makes the request only when the commitment matches. A server that swapped a key at this moment
 * would have to swap it in what the browser fetched too, where the fingerprints are shown.
 */

/** 16 bytes, base64url: what the subject's link carries after its `#`. */
const COMMIT = /^[A-Za-z0-9_-]{22}$/;

/** POST /app/api/requests: the API's create body with `commit`; the signed-in member is the requester. */
export const memberCreateRequest = (deps: CreateRequestDeps, caller: MemberCaller, rawBody: unknown, options: Pick<CreateOptions, 'prepared'> = {}) => {
  // Named as every other body is: a body that is no object has no `commit` to be wrong.
  const body = rawBody ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw validationFailed({ body: ['Must be an object.'] });
  const { commit, ...rest } = body as Record<string, unknown>;
  const errors: FieldErrors = {};
  if (typeof commit !== 'string' || !COMMIT.test(commit)) {
    errors.commit = ['Required: the recipient commitment this browser computed, 22 base64url characters.'];
  }
  if ('requester' in rest) errors.requester = ['Not allowed here: the signed-in member is the requester.'];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return createRequestFor(
    deps,
    { org: caller.org, clientScope: null, actor: memberActor(caller.member) },
    { ...rest, requester: caller.member.email },
    { ...options, browserCommit: commit as string },
  );
};

/** A comma-separated list of at most 64, as creating takes them (none: the page asks before any is typed). */
const commaList = (maxChars: number, tooMany: string) =>
  z.pipe(
    z.string().check(z.maxLength(maxChars)),
    z.pipe(
      z.transform((text: string) => text.split(',').map((part) => part.trim()).filter(Boolean)),
      z.array(z.string()).check(z.maxLength(64, tooMany)),
    ),
  );
const recipientKeysQuery = z.strictObject({
  recipients: z.optional(commaList(64 * 320, 'Must list 1 to 64 recipients.')),
  teams: z.optional(commaList(64 * 27, 'At most 64 teams.')),
});

/**
 * GET /app/api/recipient-keys: the recipients a request with these emails and teams would have
 * (the signed-in member always among them, as its requester), each with the public key the
 * browser computes the fingerprint and the commitment from. Errors as creating would give them.
 */
export const recipientKeys = async (deps: { directory: Directory }, caller: MemberCaller, query: unknown) => {
  const parsed = parseOrThrow(recipientKeysQuery, query ?? {}, UNKNOWN_QUERY_PARAMETER);
  const teamIds = parsed.teams ?? [];
  const badTeam = teamIds.findIndex((id) => !ulidString().safeParse(id).success);
  if (badTeam >= 0) throw validationFailed({ [`teams.${badTeam}`]: ['Not a team id.'] });
  const resolved = await resolveRecipients(deps.directory, {
    orgId: caller.org.id,
    emails: parsed.recipients ?? [],
    teamIds,
    requesterEmail: caller.member.email,
  });
  if (Object.keys(resolved.errors).length > 0) throw validationFailed(resolved.errors);
  return {
    recipients: resolved.members.map((member) => ({
      membership_id: member.id,
      label: member.name,
      email: member.email,
      public_key: member.identityKey!.publicKey,
    })),
    excluded: resolved.excluded,
  };
};

interface OptionsDirectory extends Directory {
  listClients(orgId: string): Promise<Client[]>;
  listTeams(orgId: string): Promise<Team[]>;
  listTemplates(orgId: string): Promise<Template[]>;
  listPresets(orgId: string): Promise<Preset[]>;
}

/**
 * GET /app/api/request-options: what the new-request form offers, by the organisation's policy and
 * plan (`preset_access`: whether a request may name a preset, core/plans.ts).
 */
export const requestOptions = async (deps: { directory: OptionsDirectory }, caller: MemberCaller) => {
  const orgId = caller.org.id;
  const [clients, teams, templates, presets, members] = await Promise.all([
    deps.directory.listClients(orgId),
    deps.directory.listTeams(orgId),
    deps.directory.listTemplates(orgId),
    deps.directory.listPresets(orgId),
    deps.directory.listMembers(orgId),
  ]);
  const policy = caller.org.policy;
  return {
    policy: {
      ttl_options_minutes: policy.ttlOptionsMinutes,
      default_ttl_minutes: policy.defaultTtlMinutes,
      minimum_verification: policy.minimumVerification,
      default_verification: policy.defaultVerification,
      verification_modes: VERIFICATION_MODES.filter((mode) => meetsMinimum(mode, policy.minimumVerification)),
    },
    default_client_id: caller.org.defaultClientId,
    clients: clientChoices(clients),
    teams: byName(teams).map((team) => ({ id: team.id, name: team.name })),
    templates: byName(templates).map((template) => ({ id: template.id, name: template.name, justification: template.justification })),
    presets: byName(presets).map((preset) => ({ slug: preset.slug, name: preset.name, defaults: preset.defaults })),
    preset_access: planIncludes(caller.org.plan, 'presets'),
    members: byName(members.filter((member) => member.active)).map((member: Member) => ({
      membership_id: member.id,
      name: member.name,
      email: member.email,
      key_state: member.identityKey?.state ?? null,
    })),
  };
};
