import * as z from 'zod/mini';
import { notFound } from '../errors.ts';
import { isId } from '../ids.ts';
import { clientChoices, managerActor, requireManager, type MemberCaller } from '../member-access.ts';
import { SCOPES, type ApiKey, type Client } from '../model.ts';
import { planIncludes } from '../plans.ts';
import type { Directory } from '../ports.ts';
import { parseOrThrow, ulidString } from '../validation.ts';
import { apiKeyView, createApiKey, MAX_ALLOWLIST_ENTRIES, newestFirst, revokeApiKey, type ApiKeyDeps } from './api-keys.ts';

/**
 * The member application's API keys page (docs/web-api.md, API keys): owners and admins list,
 * create and revoke the organisation's keys through the same rule as the operator CLI
 * (use-cases/api-keys.ts), audited with the member as the actor. Anyone else: 403.
 */
export interface MemberApiKeyDeps extends ApiKeyDeps {
  directory: Pick<Directory, 'getOrganisation' | 'getClient'> & { listClients(orgId: string): Promise<Client[]> };
}

/** A key's view needs its client's name: the one client read for it. */
const clientsOf = (client: Client | null) => new Map(client ? [[client.id, client]] : []);

/** The body's shape only; what the values mean (scopes, client, allowlist entries, expiry) is the rule's to judge. */
const createBody = z.strictObject({
  name: z.string('Must be a string.').check(z.maxLength(1000, 'Must be 1 to 100 characters.')),
  scopes: z.array(z.string('Must be a scope name.'), 'Must be an array of scope names.').check(z.maxLength(SCOPES.length * 4, `Must list at most the ${SCOPES.length} scopes.`)),
  client_id: z.nullish(ulidString()),
  allowlist: z.optional(
    z.array(z.string('Must be an address or CIDR block.').check(z.maxLength(100, 'An entry is at most 100 characters.')), 'Must be an array of addresses and CIDR blocks.').check(
      z.maxLength(MAX_ALLOWLIST_ENTRIES * 2, `At most ${MAX_ALLOWLIST_ENTRIES} entries.`),
    ),
  ),
  expires_at: z.nullish(z.string('Must be an ISO 8601 date-time.').check(z.maxLength(64, 'Must be an ISO 8601 date-time.'))),
});

/**
 * GET /app/api/keys: the organisation's keys, newest first, with what the create form offers (the
 * scopes, the organisation's clients) and whether the plan lets keys call the API at all.
 */
export const listMemberApiKeys = async (
  deps: { apiKeys: Pick<MemberApiKeyDeps['apiKeys'], 'listForOrganisation'>; directory: Pick<MemberApiKeyDeps['directory'], 'listClients'>; clock: MemberApiKeyDeps['clock'] },
  caller: MemberCaller,
) => {
  requireManager(caller, 'manage API keys');
  const [apiKeys, clients] = await Promise.all([deps.apiKeys.listForOrganisation(caller.org.id), deps.directory.listClients(caller.org.id)]);
  const clientsById = new Map(clients.map((client) => [client.id, client]));
  const now = deps.clock.now();
  newestFirst(apiKeys);
  return {
    data: apiKeys.map((apiKey) => apiKeyView(apiKey, clientsById, now)),
    scopes: SCOPES,
    clients: clientChoices(clients),
    api_access: planIncludes(caller.org.plan, 'api'),
  };
};

/** POST /app/api/keys: 201 {api_key, secret}; the secret is shown this once (null in an idempotent replay). */
export const memberCreateApiKey = async (
  deps: MemberApiKeyDeps,
  caller: MemberCaller,
  rawBody: unknown,
  prepared?: (answer: { api_key: ReturnType<typeof apiKeyView>; secret: string }) => void,
) => {
  const actor = managerActor(caller, 'manage API keys');
  const body = parseOrThrow(createBody, rawBody ?? {});
  const answer = ({ apiKey, secret, client }: { apiKey: ApiKey; secret: string; client: Client | null }) => ({
    api_key: apiKeyView(apiKey, clientsOf(client), deps.clock.now()),
    secret,
  });
  const created = await createApiKey(
    deps,
    actor,
    {
      orgId: caller.org.id,
      name: body.name,
      scopes: body.scopes,
      clientId: body.client_id ?? null,
      allowlist: body.allowlist ?? [],
      expiresAt: body.expires_at ?? null,
    },
    prepared && ((made) => prepared(answer(made))),
  );
  return answer(created);
};

/** POST /app/api/keys/{id}/revoke: 200 the key, now revoked; already revoked, 409 `illegal_transition`. */
export const memberRevokeApiKey = async (deps: MemberApiKeyDeps, caller: MemberCaller, keyId: string, prepared?: (answer: ReturnType<typeof apiKeyView>) => void) => {
  const actor = managerActor(caller, 'manage API keys');
  if (!isId(keyId)) throw notFound('No API key with this id.');
  const view = async (revoked: ApiKey) => {
    const client = revoked.clientId ? await deps.directory.getClient(caller.org.id, revoked.clientId) : null;
    return apiKeyView(revoked, clientsOf(client), deps.clock.now());
  };
  return view(await revokeApiKey(deps, actor, caller.org.id, keyId, prepared && (async (revoked) => prepared(await view(revoked)))));
};
