import { FALLBACK_ENTRY, routeList } from '../http/routes.ts';
import { NO_TABLE_ACCESS, unionOf, type TableAccess } from './table-access-types.ts';

export * from './table-access-types.ts';

// ---- building blocks -------------------------------------------------------------------------------

/** An audit entry: the organisation's chain head read and moved, the entry put (its trail copy is the record's). */
const AUDITED: TableAccess = { items: { GetItem: ['AUDIT#'], PutItem: ['AUDIT#'], UpdateItem: ['AUDIT#'] } };

/**
 * Every /v1 call: the key by its hash and its organisation, the organisation's rate window (which
 * counts each key's calls too); a call from outside the key's IP allowlist is refused with an audit entry, on any route.
 */
// The key is checked again in each change's transaction (ConditionCheckItem): a revoke under way wins.
const API_KEY_CALLER = unionOf({ items: { GetItem: ['APIKEY#', 'ORG#'], UpdateItem: ['RATE#org#', 'APIKEY#'], ConditionCheckItem: ['APIKEY#'] } }, AUDITED);

/**
 * A /v1 function: the caller's reads and the route's own. Reads an invocation starts together go
 * as one BatchGetItem (store/coalesced-reads.ts), so it may batch-read exactly what it may read.
 */
const v1 = (...parts: TableAccess[]): TableAccess => {
  const access = unionOf(API_KEY_CALLER, ...parts);
  return unionOf(access, { items: { BatchGetItem: access.items.GetItem ?? [] } });
};

/**
 * A POST taking an `Idempotency-Key` (every /v1 POST, every member POST but sign-out, the inbound
 * URLs): its record locked (put), read, finished (update), or released after a 5xx (delete).
 */
const IDEMPOTENT: TableAccess = { items: { GetItem: ['IDEM#'], PutItem: ['IDEM#'], UpdateItem: ['IDEM#'], DeleteItem: ['IDEM#'] } };

/** A signed-in member's call: the session by its hash, the member and organisation it names. */
// The member's item is checked again in each change's transaction (ConditionCheckItem): a disable under way wins.
const MEMBER: TableAccess = { items: { GetItem: ['SESSION#', 'ORG#'], ConditionCheckItem: ['ORG#'] } };

/** The subject's link: the token's record by its hash, the request, its organisation (policy, members' names). */
const SUBJECT_LINK: TableAccess = { items: { GetItem: ['LINK#', 'REQ#', 'ORG#'], Query: ['ORG#'] } };

/** A change of a request: read, replaced on its version with its audit entry and the entry's trail copy beside it. */
const REQUEST_CHANGE = unionOf({ items: { GetItem: ['REQ#'], PutItem: ['REQ#'] } }, AUDITED);

/** A change that destroys the request's stored ciphertext: its material items found and deleted in the same transaction. */
const PURGES_MATERIAL: TableAccess = { items: { Query: ['REQ#'], DeleteItem: ['REQ#'] } };

/**
 * A revoke finds the request overdue when its expiry timer has not run yet: it expires it first
 * (end-request.ts), and expiring destroys whatever material the request holds.
 */
const REVOKE = unionOf(REQUEST_CHANGE, PURGES_MATERIAL);

/** A change of a share (a view, its end): read with its envelope, replaced with its audit entry and trail copy, the envelope deleted. */
const SHARE_CHANGE = unionOf({ items: { GetItem: ['SHARE#'], PutItem: ['SHARE#'], DeleteItem: ['SHARE#'] } }, AUDITED);

/**
 * A ticket's status (by API or an integration's inbound URL): the requests and shares quoting the
 * ticket, found through the ticket GSIs and the ticket index's items, completed or revoked (purging what they hold).
 */
// Each request change is made on condition that the organisation's policy is the one read (ConditionCheckItem ORG#).
const TICKET_STATUS = unionOf(REQUEST_CHANGE, PURGES_MATERIAL, SHARE_CHANGE, {
  items: { Query: ['TICKETS#'], GetItem: ['ORG#'], ConditionCheckItem: ['ORG#'] },
  indexes: { byTicket: ['ORG#'], byExternalTicket: ['ORG#'] },
});

/**
 * A ticket read from its helpdesk and applied as a verified status: the integration, the linked
 * requests (a read that finds the status they hold notes its time on them), a failed read in the
 * activity ring.
 */
const TICKET_CHECK = unionOf(REQUEST_CHANGE, PURGES_MATERIAL, {
  items: { GetItem: ['ORG#', 'INTEGRATION#'], UpdateItem: ['INTEGRATION#', 'REQ#'], PutItem: ['INTEGRATION#'], Query: ['TICKETS#'], ConditionCheckItem: ['ORG#'] },
  indexes: { byTicket: ['ORG#'], byExternalTicket: ['ORG#'] },
});

/** A new link: the members read again, the request replaced with its new link token's record beside it, audited. */
const RELINK = unionOf(REQUEST_CHANGE, { items: { Query: ['ORG#'], PutItem: ['LINK#'] } });

/**
 * A recipient's key replaced, or the member disabled or enabled: the organisation's live requests
 * found by status, and those the member receives marked (needs_relink, unrecoverable) with their audit entries.
 */
const RECIPIENT_HEALTH = unionOf(REQUEST_CHANGE, { items: { Query: ['ORG#'] }, indexes: { byStatus: ['ORG#'] } });

/** A new record quoting or linked to a ticket notes it in the organisation's ticket index (store/ticket-index.ts). */
const TICKET_NOTED: TableAccess = { items: { UpdateItem: ['TICKETS#'], PutItem: ['TICKETS#'] } };

/** A new request: its organisation's policy, members and teams, the request, its link token's record and its ticket noted, audited. */
// The organisation's policy version is checked in the request's transaction (store/write-conditions.ts policyUnchanged).
const REQUEST_CREATION = unionOf({ items: { GetItem: ['ORG#'], Query: ['ORG#'], PutItem: ['REQ#', 'LINK#'], ConditionCheckItem: ['ORG#'] } }, TICKET_NOTED, AUDITED);

/**
 * An inbound ticket URL: the secret's record by its hash, the integration, its rate window, its
 * activity ring. Reads a post starts together go as one BatchGetItem (store/coalesced-reads.ts),
 * so it may batch-read exactly what it may read.
 */
const inboundUrl = (...parts: TableAccess[]): TableAccess => {
  const access = unionOf(
    { items: { GetItem: ['INBOUND#', 'ORG#'], UpdateItem: ['RATE#integration#', 'INTEGRATION#'], PutItem: ['INTEGRATION#'] } },
    IDEMPOTENT,
    ...parts,
  );
  return unionOf(access, { items: { BatchGetItem: access.items.GetItem ?? [] } });
};

/** The webhook URL reads the ticket index: whether anything quotes the ticket, and what. */
const TICKET_INDEX_READ: TableAccess = { items: { GetItem: ['TICKETS#'] } };

/** A custody certificate: the record and its trail, the chain's entries by sequence (a batch read) and head, the signing key. */
const CERTIFICATE: TableAccess = {
  items: { GetItem: ['REQ#', 'SHARE#', 'AUDIT#', 'SIGNING_KEYS'], Query: ['REQ#', 'SHARE#'], BatchGetItem: ['AUDIT#'], PutItem: ['SIGNING_KEYS'] },
};

/** GET /requests: the narrowest of the four list indexes its filters allow, under the organisation's partitions. */
const ORG_REQUESTS_INDEXES: TableAccess = { items: {}, indexes: { byOrg: ['ORG#'], byStatus: ['ORG#'], byClient: ['ORG#'], byTicket: ['ORG#'] } };

// ---- the routes -------------------------------------------------------------------------------------

/**
 * What each route's handler does with the table. The stack builds each function's IAM policy
 * from these (lib/table-access.ts), and the local runtime refuses any call outside them
 * (table-access-guard.ts), so every HTTP test proves they suffice. Routes that share a handler
 * entry share a function, which gets the union. A route without an entry here fails the synth
 * and the local call alike: a route that touches no table says so with NO_TABLE_ACCESS.
 */
export const ROUTE_TABLE_ACCESS: Readonly<Record<string, TableAccess>> = {
  ping: v1(),
  generate: v1(IDEMPOTENT),
  listRequests: v1(ORG_REQUESTS_INDEXES),
  createRequest: v1(IDEMPOTENT, REQUEST_CREATION),
  getRequest: v1({ items: { GetItem: ['REQ#'] } }),
  revokeRequest: v1(IDEMPOTENT, REVOKE),
  completeRequest: v1(IDEMPOTENT, REQUEST_CHANGE, PURGES_MATERIAL),
  relinkRequest: v1(IDEMPOTENT, RELINK),
  markTicketStatus: v1(IDEMPOTENT, TICKET_STATUS),

  requestCertificate: v1(CERTIFICATE),
  shareCertificate: v1(CERTIFICATE),

  listEvents: v1({ items: { Query: ['AUDIT#'] } }),
  listWebhooks: v1({ items: { Query: ['ORG#'] } }),
  // On condition that the organisation's plan still includes outbound webhooks (ConditionCheckItem ORG#).
  createWebhook: v1(IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#'], ConditionCheckItem: ['ORG#'] } }),
  deleteWebhook: v1(AUDITED, { items: { GetItem: ['ORG#'], DeleteItem: ['ORG#'] } }),

  // The subject's page: its link's own request only, and the organisation's policy and names.
  subjectRequest: SUBJECT_LINK,
  subjectOpen: unionOf(SUBJECT_LINK, REQUEST_CHANGE),
  subjectEmailCode: unionOf(SUBJECT_LINK, REQUEST_CHANGE),
  subjectVerify: unionOf(SUBJECT_LINK, REQUEST_CHANGE),
  // A submission to a request whose ticket is already closed is destroyed at once (tickets/closed-before-submission.ts).
  subjectSubmit: unionOf(SUBJECT_LINK, REQUEST_CHANGE, PURGES_MATERIAL),
  subjectReport: unionOf(SUBJECT_LINK, REQUEST_CHANGE),

  // Sign-in by email: the address's memberships and sending window, the one-time sign-in token; then the session.
  appSignIn: { items: { Query: ['LOGIN#'], GetItem: ['LOGIN#', 'ORG#'], PutItem: ['LOGIN#', 'SIGNIN#'] } },
  appSession: { items: { DeleteItem: ['SIGNIN#'], GetItem: ['ORG#', 'SIGNIN#'], PutItem: ['SESSION#'] } },
  appSignOut: unionOf(MEMBER, { items: { DeleteItem: ['SESSION#'] } }),
  appMe: MEMBER,
  appIdentityKey: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { UpdateItem: ['ORG#'] } }, RECIPIENT_HEALTH),
  appRequests: unionOf(MEMBER, { items: {}, indexes: { byOrg: ['ORG#'] } }),
  // A request made in the member's browser: the members, teams and policy it resolves, created as by the API.
  appCreateRequest: unionOf(MEMBER, IDEMPOTENT, REQUEST_CREATION),
  appRecipientKeys: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appRequestOptions: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appRequest: unionOf(MEMBER, { items: { GetItem: ['REQ#'], Query: ['REQ#'] } }),
  appReveal: unionOf(MEMBER, IDEMPOTENT, REQUEST_CHANGE, { items: { Query: ['REQ#'] } }),
  appComplete: unionOf(MEMBER, IDEMPOTENT, REQUEST_CHANGE, PURGES_MATERIAL),
  appRevokeRequest: unionOf(MEMBER, IDEMPOTENT, REVOKE),
  appRelinkRequest: unionOf(MEMBER, IDEMPOTENT, RELINK),
  appRequestCertificate: unionOf(MEMBER, CERTIFICATE),
  appShares: unionOf(MEMBER, { items: {}, indexes: { byOrg: ['ORG#'] } }),
  appCreateShare: unionOf(MEMBER, IDEMPOTENT, AUDITED, TICKET_NOTED, { items: { PutItem: ['SHARE#', 'SHARELINK#'] } }),
  appShare: unionOf(MEMBER, { items: { GetItem: ['SHARE#'] } }),
  appPurgeShare: unionOf(MEMBER, IDEMPOTENT, SHARE_CHANGE),
  appShareCertificate: unionOf(MEMBER, CERTIFICATE),
  // The audit log page: the organisation's chain, or its API read records, read newest first.
  appAudit: unionOf(MEMBER, { items: { Query: ['AUDIT#', 'APIREAD#'] } }),
  appMembers: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appApproveKey: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { UpdateItem: ['ORG#'] } }),
  appRefuseKey: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { UpdateItem: ['ORG#'] } }),
  // Organisation settings (owners and admins). An invitation: the email index read, the member and its
  // index items put (the sign-in index under LOGIN#), the sign-in token saved. A role or state change:
  // the members read, the member updated with the owners kept checked in the same transaction.
  appInviteMember: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#', 'LOGIN#', 'SIGNIN#'] } }),
  appMemberRole: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { Query: ['ORG#'], UpdateItem: ['ORG#'], ConditionCheckItem: ['ORG#'] } }),
  appDisableMember: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { Query: ['ORG#'], UpdateItem: ['ORG#'], ConditionCheckItem: ['ORG#'] } }, RECIPIENT_HEALTH),
  appEnableMember: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { Query: ['ORG#'], UpdateItem: ['ORG#'], ConditionCheckItem: ['ORG#'] } }, RECIPIENT_HEALTH),
  // Clients and teams: listed; a team's members checked in the transaction that writes it.
  appClients: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appCreateClient: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#'] } }),
  appRenameClient: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { UpdateItem: ['ORG#'] } }),
  appTeams: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appCreateTeam: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { Query: ['ORG#'], PutItem: ['ORG#'], ConditionCheckItem: ['ORG#'] } }),
  appChangeTeam: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { Query: ['ORG#'], UpdateItem: ['ORG#'], ConditionCheckItem: ['ORG#'] } }),
  // Webhooks (owners and admins): the subscriptions as /v1/webhooks reads and writes them; a ping or
  // redelivery puts its delivery with its audit entry (the worker sends it); a rotation replaces the secrets.
  appWebhooks: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appWebhook: MEMBER,
  appCreateWebhook: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#'] } }),
  appDeleteWebhook: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { DeleteItem: ['ORG#'] } }),
  appPingWebhook: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['DELIVERY#'] } }),
  // A page of a subscription's deliveries from its index; a later page's cursor is a delivery, read to find where it starts.
  appWebhookDeliveries: unionOf(MEMBER, { items: { GetItem: ['DELIVERY#'] }, indexes: { byOrg: ['ORG#'] } }),
  appRedeliverWebhook: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { GetItem: ['DELIVERY#'], PutItem: ['DELIVERY#'] } }),
  appRotateWebhookSecret: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { UpdateItem: ['ORG#'] } }),
  // API keys (owners and admins): the organisation's keys through its index, and its clients; a key
  // put with its pointers (APIKEYREF#, by id and display prefix), or revoked, with its audit entry.
  // A revocation finds the key through its pointer, read consistently (the index lags deployed),
  // or through the index for a key made before pointers were kept; then reads it by its hash.
  appApiKeys: unionOf(MEMBER, { items: { Query: ['ORG#'] }, indexes: { byOrg: ['ORG#'] } }),
  appCreateApiKey: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['APIKEY#', 'APIKEYREF#'] } }),
  appRevokeApiKey: unionOf(MEMBER, IDEMPOTENT, AUDITED, {
    items: { GetItem: ['APIKEY#', 'APIKEYREF#'], Query: ['APIKEYREF#'], UpdateItem: ['APIKEY#'] },
    indexes: { byOrg: ['ORG#'] },
  }),
  // The organisation's settings (owners and admins): the policy a field of the organisation's item;
  // templates and presets items beside it (a preset's template and fallback requester read to check
  // them); a default preset a field of the organisation's or a client's item. Each change audited.
  appOrganisationPolicy: MEMBER,
  // The presets are read to refuse a change that would leave one unusable.
  appChangeOrganisationPolicy: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { UpdateItem: ['ORG#'], Query: ['ORG#'] } }),
  appTemplates: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appCreateTemplate: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#'] } }),
  appPresets: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  // The preset, and the organisation's policy version it was judged against (moved on with it).
  appSavePreset: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { Query: ['ORG#'], PutItem: ['ORG#'], UpdateItem: ['ORG#'] } }),
  appSetDefaultPreset: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { UpdateItem: ['ORG#'] } }),
  // Ticketing integrations (owners and admins), as the operator's commands read and write them: the
  // integration under its organisation, each URL secret's look-up put (and on rotation the old one
  // deleted) in the change's transaction; the forms' clients and presets; the activity ring.
  appIntegrations: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appConnectIntegration: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#', 'INBOUND#'] } }),
  appIntegration: unionOf(MEMBER, { items: { Query: ['ORG#'] } }),
  appConfigureIntegration: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#'] } }),
  appRotateIntegration: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#', 'INBOUND#'], DeleteItem: ['INBOUND#'] } }),
  appIntegrationActivity: unionOf(MEMBER, { items: { Query: ['INTEGRATION#'] } }),
  /** The integration replaced with its sealed connection, and the reconciliation's list of connected integrations changed in the same transaction. */
  appConnectHelpdesk: unionOf(MEMBER, IDEMPOTENT, AUDITED, { items: { PutItem: ['ORG#', 'HELPDESK_INTEGRATIONS'], DeleteItem: ['HELPDESK_INTEGRATIONS'] } }),
  /** The integration and the organisation's policy read; the ticket read from the helpdesk. */
  appCheckHelpdesk: unionOf(MEMBER, IDEMPOTENT),

  // A share's recipient: the link's record by its hash and the share it names, nothing of any organisation's.
  shareDescribe: { items: { GetItem: ['SHARELINK#', 'SHARE#'] } },
  shareOpen: unionOf({ items: { GetItem: ['SHARELINK#'] } }, SHARE_CHANGE),

  // The public keys, and nothing else, read only: the certificate function registers the first key, never the function that publishes them.
  jwks: { items: { Query: ['SIGNING_KEYS'] } },

  inboundTicketStatus: inboundUrl(TICKET_STATUS, TICKET_INDEX_READ),
  // The guard, and the earlier request it replaces checked still ended in the same transaction.
  inboundTicketTrigger: inboundUrl(REQUEST_CREATION, { items: { GetItem: ['TRIGGER#', 'REQ#'], PutItem: ['TRIGGER#'], ConditionCheckItem: ['REQ#'] } }),

  // The pages: built files, no table.
  pageSubject: NO_TABLE_ACCESS,
  pageShare: NO_TABLE_ACCESS,
  pageApp: NO_TABLE_ACCESS,
  pageAppDeep: NO_TABLE_ACCESS,
  assets: NO_TABLE_ACCESS,
  // The API's own description, served from the bundle.
  openapi: NO_TABLE_ACCESS,
};

/** The workers the stack deploys beside the API functions (lib/expiry.ts, lib/webhooks.ts). */
export const WORKER_TABLE_ACCESS = {
  /** A request's (or share's) schedule fired: it expires, purging what it holds. */
  expire: unionOf(REQUEST_CHANGE, PURGES_MATERIAL, SHARE_CHANGE),
  /** A ticket-close grace period ended: the request completes, purging what it holds (its organisation's policy says whether to signal a rotation). */
  purge: unionOf(REQUEST_CHANGE, PURGES_MATERIAL, { items: { GetItem: ['ORG#'] } }),
  /** Every request and share already due, through the byDue index's request and share shards, settled as the two workers would. */
  sweep: unionOf(REQUEST_CHANGE, PURGES_MATERIAL, SHARE_CHANGE, { items: { GetItem: ['ORG#'] }, indexes: { byDue: ['DUE#', 'SHAREDUE#'] } }),
  /**
   * New audit entries from the stream (keys only): each entry read (the reads a batch starts
   * together as one BatchGetItem), the organisation (its plan) and its subscriptions, a delivery
   * put for each (several to a transaction).
   */
  fanOut: { items: { GetItem: ['ORG#', 'AUDIT#'], BatchGetItem: ['ORG#', 'AUDIT#'], Query: ['ORG#'], PutItem: ['DELIVERY#'] }, stream: true },
  /**
   * A batch of deliveries: each, its subscription and the event's entry read (the reads the batch
   * starts together as one BatchGetItem); attempt and outcome written; a final failure audited.
   */
  deliver: unionOf(AUDITED, { items: { GetItem: ['DELIVERY#', 'ORG#'], BatchGetItem: ['DELIVERY#', 'ORG#', 'AUDIT#'], UpdateItem: ['DELIVERY#', 'ORG#'] } }),
  /** Pending deliveries past due, through the byDelivery index's shards. */
  deliverySweep: { items: {}, indexes: { byDelivery: ['DELIVERY_DUE#'] } },
  /** One linked ticket read from its helpdesk: the integration and organisation, the linked requests changed as a verified status does, a failed read in the activity ring. */
  ticketCheck: TICKET_CHECK,
  /** Every helpdesk-connected integration's live linked requests (the byStatus index), each ticket checked. */
  reconcile: unionOf(TICKET_CHECK, { items: { Query: ['HELPDESK_INTEGRATIONS'] }, indexes: { byStatus: ['ORG#'] } }),
  /**
   * The reads through API keys, as their functions logged them: each stored in its organisation's
   * APIREAD# partition, beside the chain (core/api-reads.ts). The reading functions never write it.
   */
  recordApiReads: { items: { BatchWriteItem: ['APIREAD#'] } },
} as const satisfies Record<string, TableAccess>;

export type WorkerName = keyof typeof WORKER_TABLE_ACCESS;

export class MissingTableAccessError extends Error {
  constructor(routeName: string) {
    super(`route ${routeName} has no table access declaration: add one to ROUTE_TABLE_ACCESS in lambdas/access/table-access.ts (NO_TABLE_ACCESS if it touches no table)`);
    this.name = 'MissingTableAccessError';
  }
}

/** A route's own declaration; throws when it has none. */
export const tableAccessOfRoute = (routeName: string): TableAccess => {
  const access = ROUTE_TABLE_ACCESS[routeName];
  if (!access) throw new MissingTableAccessError(routeName);
  return access;
};

/** The function serving a handler entry: the union of its routes' declarations (the fallback: none). */
export const tableAccessOfEntry = (entry: string): TableAccess => {
  if (entry === FALLBACK_ENTRY) return NO_TABLE_ACCESS;
  const routes = routeList().filter((route) => route.entry === entry);
  if (routes.length === 0) throw new Error(`no route has the handler entry ${entry}`);
  return unionOf(...routes.map((route) => tableAccessOfRoute(route.name)));
};

export const tableAccessOfWorker = (worker: WorkerName): TableAccess => WORKER_TABLE_ACCESS[worker];
