/** Key builders for every item kind. The layout is described in DESIGN-KEYS.md. */
export type ItemKey = { pk: string; sk: string };

const org = (orgId: string) => `ORG#${orgId}`;
const ticketsOf = (orgId: string) => `TICKETS#${orgId}`;
const apiKeyRefsOf = (orgId: string) => `APIKEYREF#${orgId}`;
const apiKeyPrefixRefPrefix = (prefix: string) => `PREFIX#${prefix}#`;
const ticketRecordPrefix = (refHash: string, recordType: string) => `REF#${refHash}#${recordType}#`;

export const keys = {
  organisation: (orgId: string): ItemKey => ({ pk: org(orgId), sk: 'ORG' }),
  webhook: (orgId: string, webhookId: string): ItemKey => ({ pk: org(orgId), sk: `WEBHOOK#${webhookId}` }),
  member: (orgId: string, memberId: string): ItemKey => ({ pk: org(orgId), sk: `MEMBER#${memberId}` }),
  memberPrefix: 'MEMBER#',
  memberEmail: (orgId: string, email: string): ItemKey => ({ pk: org(orgId), sk: `EMAIL#${email.toLowerCase()}` }),
  client: (orgId: string, clientId: string): ItemKey => ({ pk: org(orgId), sk: `CLIENT#${clientId}` }),
  clientPrefix: 'CLIENT#',
  team: (orgId: string, teamId: string): ItemKey => ({ pk: org(orgId), sk: `TEAM#${teamId}` }),
  teamPrefix: 'TEAM#',
  template: (orgId: string, templateId: string): ItemKey => ({ pk: org(orgId), sk: `TEMPLATE#${templateId}` }),
  templatePrefix: 'TEMPLATE#',
  preset: (orgId: string, slug: string): ItemKey => ({ pk: org(orgId), sk: `PRESET#${slug}` }),
  presetPrefix: 'PRESET#',
  integration: (orgId: string, integrationId: string): ItemKey => ({
    pk: org(orgId),
    sk: `INTEGRATION#${integrationId}`,
  }),
  integrationPrefix: 'INTEGRATION#',
  /** An inbound URL's secret, looked up by its hash; names the integration and which URL it is. */
  inboundSecret: (secretHash: string): ItemKey => ({ pk: `INBOUND#${secretHash}`, sk: 'INBOUND' }),
  /** The integration's activity log: a ring of slots, so it can never grow past its cap. */
  integrationActivity: (integrationId: string, slot: number): ItemKey => ({
    pk: `INTEGRATION#${integrationId}`,
    sk: `ACTIVITY#${String(slot).padStart(3, '0')}`,
  }),
  integrationActivityPrefix: 'ACTIVITY#',
  integrationActivityCounter: (integrationId: string): ItemKey => ({ pk: `INTEGRATION#${integrationId}`, sk: 'ACTIVITY_COUNTER' }),
  /** Until when the integration's helpdesk asked not to be called (its Retry-After). */
  helpdeskWait: (integrationId: string): ItemKey => ({ pk: `INTEGRATION#${integrationId}`, sk: 'HELPDESK_WAIT' }),
  /** Every integration connected to a helpdesk, in one partition: what the reconciliation reads. */
  helpdeskIntegration: (orgId: string, integrationId: string): ItemKey => ({ pk: 'HELPDESK_INTEGRATIONS', sk: `ORG#${orgId}#${integrationId}` }),
  helpdeskIntegrationPrefix: 'ORG#',
  /** The ticket index (ticket-index.ts): which kinds of record quote or link one ticket of the organisation, by the SHA-256 of its reference. */
  ticketIndexEntry: (orgId: string, refHash: string): ItemKey => ({ pk: ticketsOf(orgId), sk: `REF#${refHash}` }),
  /** One record quoting or linked to that ticket, beside the ticket's entry: found by a consistent query of `ticketRecordPrefix` for its kind. */
  ticketRecord: (orgId: string, refHash: string, recordType: string, recordId: string): ItemKey => ({
    pk: ticketsOf(orgId),
    sk: `${ticketRecordPrefix(refHash, recordType)}${recordId}`,
  }),
  ticketRecordPrefix,
  /** One open triggered request per (integration, ticket, preset): the trigger's duplicate guard. */
  ticketTrigger: (orgId: string, integrationId: string, preset: string, ticketId: string): ItemKey => ({
    pk: `TRIGGER#${orgId}#${integrationId}#${preset}#${ticketId}`,
    sk: 'TRIGGER',
  }),

  apiKey: (hash: string): ItemKey => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' }),
  apiKeysOfOrg: (orgId: string) => `${org(orgId)}#APIKEYS`,
  /**
   * Pointers to the organisation's keys (their hashes), by id and by display prefix: read
   * consistently where a key must be found the moment it is made, which the byOrg index, lagging
   * its table deployed, cannot promise. In a partition of their own, apart from the organisation's
   * items, so nothing that reads those hands a key's hash on.
   */
  apiKeyRefsOfOrg: apiKeyRefsOf,
  apiKeyIdRef: (orgId: string, keyId: string): ItemKey => ({ pk: apiKeyRefsOf(orgId), sk: `ID#${keyId}` }),
  apiKeyPrefixRef: (orgId: string, prefix: string, keyId: string): ItemKey => ({ pk: apiKeyRefsOf(orgId), sk: `${apiKeyPrefixRefPrefix(prefix)}${keyId}` }),
  apiKeyPrefixRefPrefix,

  request: (requestId: string): ItemKey => ({ pk: `REQ#${requestId}`, sk: 'REQ' }),
  /** Stored ciphertext of a request (envelope and attachments) lives beside it under this prefix. */
  requestMaterialPrefix: 'MATERIAL#',
  requestsOfOrg: (orgId: string) => `${org(orgId)}#REQS`,
  requestsInStatus: (orgId: string, status: string) => `${org(orgId)}#REQS#${status}`,
  requestsOfClient: (orgId: string, clientId: string) => `${org(orgId)}#CLIENT#${clientId}`,
  requestsOfTicket: (orgId: string, ticketRef: string) => `${org(orgId)}#TICKET#${ticketRef}`,
  requestsOfExternalTicket: (orgId: string, externalId: string) => `${org(orgId)}#XTICKET#${externalId}`,
  /** One partition per shard of live requests ordered by due time; the sweep reads them all. */
  dueShard: (requestId: string) => `DUE#${requestId.charCodeAt(requestId.length - 1) % DUE_SHARDS}`,
  dueShards: () => Array.from({ length: DUE_SHARDS }, (_, shard) => `DUE#${shard}`),
  /** Audit entries about a request, copied beside it for the request's trail. */
  trailPrefix: 'TRAIL#',
  trailEntry: (requestId: string, seq: number): ItemKey => ({ pk: `REQ#${requestId}`, sk: `TRAIL#${String(seq).padStart(12, '0')}` }),
  share: (shareId: string): ItemKey => ({ pk: `SHARE#${shareId}`, sk: 'SHARE' }),
  shareEnvelope: (shareId: string): ItemKey => ({ pk: `SHARE#${shareId}`, sk: 'MATERIAL#envelope' }),
  shareTrailEntry: (shareId: string, seq: number): ItemKey => ({ pk: `SHARE#${shareId}`, sk: `TRAIL#${String(seq).padStart(12, '0')}` }),
  /** A share's link token, looked up by hash; names the share. */
  shareLinkToken: (tokenHash: string): ItemKey => ({ pk: `SHARELINK#${tokenHash}`, sk: 'LINK' }),
  sharesOfOrg: (orgId: string) => `${org(orgId)}#SHARES`,
  sharesOfTicket: (orgId: string, ticketRef: string) => `${org(orgId)}#SHARETICKET#${ticketRef}`,
  envelope: (requestId: string): ItemKey => ({ pk: `REQ#${requestId}`, sk: 'MATERIAL#envelope' }),
  attachment: (requestId: string, index: number): ItemKey => ({ pk: `REQ#${requestId}`, sk: `MATERIAL#attachment#${String(index).padStart(3, '0')}` }),

  /** Members by email across organisations, for sign-in. */
  login: (email: string) => `LOGIN#${email.toLowerCase()}`,
  loginMembership: (email: string, orgId: string, memberId: string): ItemKey => ({
    pk: `LOGIN#${email.toLowerCase()}`,
    sk: `MEMBER#${orgId}#${memberId}`,
  }),
  signInToken: (tokenHash: string): ItemKey => ({ pk: `SIGNIN#${tokenHash}`, sk: 'SIGNIN' }),
  session: (tokenHash: string): ItemKey => ({ pk: `SESSION#${tokenHash}`, sk: 'SESSION' }),

  linkToken: (tokenHash: string): ItemKey => ({ pk: `LINK#${tokenHash}`, sk: 'LINK' }),

  /** The certificate signing keys (public halves and references), and the pointer to the current one. */
  signingKeysPartition: 'SIGNING_KEYS',
  signingKeyPrefix: 'KEY#',
  signingKey: (kid: string): ItemKey => ({ pk: 'SIGNING_KEYS', sk: `KEY#${kid}` }),
  currentSigningKey: (): ItemKey => ({ pk: 'SIGNING_KEYS', sk: 'CURRENT' }),

  /** An API read's record, beside the chain and not on it (core/api-reads.ts), in time order by its ULID. */
  apiRead: (orgId: string, readId: string): ItemKey => ({ pk: `APIREAD#${orgId}`, sk: `READ#${readId}` }),
  apiReadsOfOrg: (orgId: string) => `APIREAD#${orgId}`,
  apiReadPrefix: 'READ#',

  auditHead: (orgId: string): ItemKey => ({ pk: `${AUDIT_PARTITION_PREFIX}${orgId}`, sk: 'HEAD' }),
  auditEntry: (orgId: string, seq: number): ItemKey => ({ pk: `${AUDIT_PARTITION_PREFIX}${orgId}`, sk: auditSortKey(seq) }),

  idempotency: (apiKeyId: string, idempotencyKeyHash: string): ItemKey => ({
    pk: `IDEM#${apiKeyId}#${idempotencyKeyHash}`,
    sk: 'IDEM',
  }),
  rateWindow: (scope: 'org' | 'integration', id: string, windowStart: number): ItemKey => ({
    pk: `RATE#${scope}#${id}#${windowStart}`,
    sk: 'RATE',
  }),
};

const DUE_SHARDS = 4;

/** An organisation's audit chain: its head and its entries (the stream's filter names them by these). */
export const AUDIT_PARTITION_PREFIX = 'AUDIT#';
export const AUDIT_ENTRY_PREFIX = 'SEQ#';

/** Zero-padded so that sort order is numeric order. */
export const auditSortKey = (seq: number) => `${AUDIT_ENTRY_PREFIX}${String(seq).padStart(12, '0')}`;
