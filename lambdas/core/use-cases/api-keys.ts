import type { AuditType } from '../audit-types.ts';
import { organisationAudit } from '../organisation-audit.ts';
import { allowlistEntry } from '../address-allowlist.ts';
import { apiKeyDisplayPrefix, apiKeyHash, newApiKeySecret } from '../api-key-format.ts';
import { instantOf } from '../calendar.ts';
import type { Clock } from '../clock.ts';
import { illegalTransition, notFound, validationFailed, WriteConflict, type FieldErrors } from '../errors.ts';
import { newId } from '../ids.ts';
import { SCOPES, type Actor, type ApiKey, type Client, type Scope } from '../model.ts';
import type { ApiKeyStore, AuditEntryInput, Directory } from '../ports.ts';

/**
 * API keys (SPEC.md, Authentication): created with scopes, an optional client, an optional IP
 * allowlist and an optional expiry; the secret is shown once and only its hash is stored; revoked
 * at once. The one rule for every way in: the operator CLI (`create-key`, `revoke-key`, through
 * AdminStore) and the member application's API keys page (use-cases/member-api-keys.ts) call these
 * two functions, each with its own actor in the audit entry.
 */
export interface ApiKeyDeps {
  apiKeys: ApiKeyStore;
  directory: Pick<Directory, 'getOrganisation' | 'getClient'>;
  clock: Clock;
}

export const MAX_API_KEY_NAME = 100;
export const MAX_ALLOWLIST_ENTRIES = 100;

export interface ApiKeyInput {
  orgId: string;
  name: string;
  /** Scope names; anything outside SCOPES is refused. */
  scopes: readonly string[];
  clientId?: string | null;
  /** Addresses and CIDR blocks, IPv4 or IPv6; blank entries are ignored. */
  allowlist?: readonly string[];
  /** ISO 8601: a date-time with its offset (or Z), or a date (its start, UTC); must be in the future. */
  expiresAt?: string | null;
}

export type ApiKeyState = 'active' | 'revoked' | 'expired';

/** Revoked wins over expired: a revoked key was ended on purpose, whatever its expiry. */
export const apiKeyState = (apiKey: ApiKey, now: Date): ApiKeyState =>
  apiKey.revokedAt ? 'revoked' : apiKey.expiresAt && Date.parse(apiKey.expiresAt) <= now.getTime() ? 'expired' : 'active';

/** A key as it is shown (the member app's list; never the hash, never the key itself). */
export const apiKeyView = (apiKey: ApiKey, clients: ReadonlyMap<string, Client>, now: Date) => ({
  id: apiKey.id,
  object: 'api_key' as const,
  name: apiKey.name,
  prefix: apiKey.prefix,
  scopes: apiKey.scopes,
  client: apiKey.clientId ? { id: apiKey.clientId, name: clients.get(apiKey.clientId)?.name ?? null } : null,
  allowlist: apiKey.allowlist,
  expires_at: apiKey.expiresAt,
  revoked_at: apiKey.revokedAt,
  created_at: apiKey.createdAt,
  last_used_at: apiKey.lastUsedAt ?? null,
  state: apiKeyState(apiKey, now),
});
export type ApiKeyView = ReturnType<typeof apiKeyView>;

const auditOf = (apiKey: ApiKey, actor: Actor, type: AuditType, details: Record<string, unknown>): AuditEntryInput =>
  organisationAudit(apiKey.orgId, actor, type, { details: { key_id: apiKey.id, name: apiKey.name, prefix: apiKey.prefix, ...details } });

/**
 * A key's expiry as typed: a date alone is the end of that day in UTC (the key works through the
 * day named, as the application's date picker means its day), a date-time is that instant.
 */
const expiryOf = (text: string): Date | null => {
  const instant = instantOf(text);
  if (!instant || /[tT]/.test(text)) return instant;
  return new Date(instant.getTime() + DAY_MS - 1);
};
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a key and returns it with its secret, which is never stored and never shown again.
 * Every problem is refused at once, by field (422 `validation_failed`): the name, the scopes, the
 * client, each allowlist entry (read exactly as the API reads it when a call arrives), the expiry.
 * `prepared` is given the new key just before it is stored: a caller with an Idempotency-Key keeps
 * its answer in the creation's own transaction (store/idempotent-commit.ts), so a creation whose
 * answer was lost replays instead of minting a second key.
 */
export const createApiKey = async (
  deps: ApiKeyDeps,
  actor: Actor,
  input: ApiKeyInput,
  prepared?: (created: { apiKey: ApiKey; secret: string; client: Client | null }) => void,
): Promise<{ apiKey: ApiKey; secret: string; client: Client | null }> => {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_API_KEY_NAME) add('name', `Must be 1 to ${MAX_API_KEY_NAME} characters.`);

  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) add('scopes', `Choose at least one scope: ${SCOPES.join(', ')}.`);
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) add('scopes', `Unknown scope ${JSON.stringify(scope)}; one of ${SCOPES.join(', ')}.`);
  }

  // A blank entry is refused, never dropped: an allowlist of only blanks would read as "any address".
  const entries = (input.allowlist ?? []).map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) add('allowlist', 'Entries must not be blank.');
  const allowlist = [...new Set(entries.filter(Boolean))];
  if (allowlist.length > MAX_ALLOWLIST_ENTRIES) add('allowlist', `At most ${MAX_ALLOWLIST_ENTRIES} entries.`);
  for (const entry of allowlist) {
    if (!allowlistEntry(entry)) add('allowlist', `${JSON.stringify(entry)} is not an IP address or CIDR block (for example 203.0.113.7, 198.51.100.0/24 or 2001:db8::/32).`);
  }

  let expiresAt: string | null = null;
  // Blank is refused, never read as "never expires": null says that.
  if (input.expiresAt !== null && input.expiresAt !== undefined) {
    const instant = expiryOf(input.expiresAt.trim());
    if (!instant) add('expires_at', 'Must be an ISO 8601 date (2030-12-31: the key works through that day, UTC) or date-time with its offset (2030-12-31T17:00:00Z).');
    else if (instant.getTime() <= deps.clock.now().getTime()) add('expires_at', 'Must be in the future.');
    else expiresAt = instant.toISOString();
  }

  const clientId = input.clientId ?? null;
  const [org, client] = await Promise.all([deps.directory.getOrganisation(input.orgId), clientId ? deps.directory.getClient(input.orgId, clientId) : null]);
  if (!org) throw notFound('No such organisation.');
  if (clientId && !client) add('client_id', 'No such client in this organisation.');
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const secret = newApiKeySecret();
  const apiKey: ApiKey = {
    id: newId(),
    orgId: input.orgId,
    name,
    prefix: apiKeyDisplayPrefix(secret),
    hash: apiKeyHash(secret),
    scopes: scopes as Scope[],
    clientId,
    allowlist,
    expiresAt,
    revokedAt: null,
    createdAt: deps.clock.now().toISOString(),
  };
  prepared?.({ apiKey, secret, client });
  await deps.apiKeys.create(
    apiKey,
    auditOf(apiKey, actor, 'api_key.created', { scopes: apiKey.scopes, client_id: clientId, allowlist, expires_at: expiresAt }),
  );
  return { apiKey, secret, client };
};

const alreadyRevoked = () => illegalTransition('This API key is already revoked.');

/**
 * The key as it stands, read consistently. Its pointer names its hash the moment it is made; the
 * organisation's list is an index, which lags its table deployed, so a key revoked just after its
 * creation may not be listed yet. Only a key made before pointers were kept is found through the list.
 */
const keyOfOrganisation = async (apiKeys: ApiKeyStore, orgId: string, idOrPrefix: string): Promise<ApiKey | null> => {
  const hash = await apiKeys.hashOfKey(orgId, idOrPrefix);
  const pointed = hash ? await apiKeys.findByHash(hash) : null;
  if (pointed?.orgId === orgId) return pointed;
  const listed = (await apiKeys.listForOrganisation(orgId)).find((k) => k.id === idOrPrefix || k.prefix === idOrPrefix);
  if (!listed) return null;
  // The listed copy may lag too: the key's own item decides.
  return (await apiKeys.findByHash(listed.hash)) ?? listed;
};

/** Keys as every list shows them (the application's API keys page, the CLI's list-keys): newest first. */
export const newestFirst = (apiKeys: ApiKey[]) => apiKeys.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));

/**
 * Revokes a key by id or display prefix: refused from the next call on. A key already revoked is
 * 409 `illegal_transition` (a revocation that lost a race to another one too); no such key of the
 * organisation, 404.
 * `prepared` is given the revoked key just before the revocation is stored (a caller's Idempotency-Key keeps its answer in that transaction).
 */
export const revokeApiKey = async (
  deps: Pick<ApiKeyDeps, 'apiKeys' | 'clock'>,
  actor: Actor,
  orgId: string,
  idOrPrefix: string,
  prepared?: (revoked: ApiKey) => Promise<void>,
): Promise<ApiKey> => {
  const apiKey = await keyOfOrganisation(deps.apiKeys, orgId, idOrPrefix);
  if (!apiKey) throw notFound('No API key with this id or prefix.');
  if (apiKey.revokedAt) throw alreadyRevoked();
  const revokedAt = deps.clock.now().toISOString();
  await prepared?.({ ...apiKey, revokedAt });
  try {
    await deps.apiKeys.revoke(apiKey, revokedAt, auditOf(apiKey, actor, 'api_key.revoked', {}));
  } catch (error) {
    if (error instanceof WriteConflict) throw alreadyRevoked();
    throw error;
  }
  return { ...apiKey, revokedAt };
};
