/**
 * The interfaces the domain needs from the outside world. Implementations live in store/ and
 * adapters/; tests pass fakes. Nothing here imports an implementation.
 */
import type { AuditType } from './audit-types.ts';
import type {
  Actor,
  ApiKey,
  Client,
  HandoffRequest,
  Member,
  Organisation,
  Preset,
  RequestStatus,
  Team,
  Template,
} from './model.ts';
import type { Integration } from './integration.ts';
import type { DeliveryRoute } from './delivery-lanes.ts';

export interface Directory {
  getOrganisation(orgId: string): Promise<Organisation | null>;
  listMembers(orgId: string): Promise<Member[]>;
  getClient(orgId: string, clientId: string): Promise<Client | null>;
  getTeam(orgId: string, teamId: string): Promise<Team | null>;
  getTemplate(orgId: string, templateId: string): Promise<Template | null>;
  getPreset(orgId: string, slug: string): Promise<Preset | null>;
  /** The integration's client (null: organisation-wide), or null when the organisation has no such integration. */
  /** The integration a request links its ticket through: its client scope, and its helpdesk connection for ticket_reply. */
  getIntegration(orgId: string, integrationId: string): Promise<(Pick<Integration, 'clientId'> & Partial<Integration>) | null>;
}

export interface ApiKeyLookup {
  findByHash(hash: string): Promise<ApiKey | null>;
}

/** What /v1 calls record of a key's use (its "last used" time). */
export interface ApiKeyUse {
  /** Records a call's use of the key unless a use since `staleBefore` is already recorded. */
  noteUse(hash: string, at: string, staleBefore: string): Promise<void>;
}

/** API keys as the operator CLI and the member app manage them (store/api-keys.ts). */
export interface ApiKeyStore extends ApiKeyLookup {
  listForOrganisation(orgId: string): Promise<ApiKey[]>;
  /**
   * The hash of the organisation's key with this id or display prefix, read consistently from the
   * pointers kept beside the key (the list is an index, which lags deployed); null where none is,
   * as for keys made before pointers were kept.
   */
  hashOfKey(orgId: string, idOrPrefix: string): Promise<string | null>;
  /** Stores a new key with its audit entry, in one transaction. */
  create(apiKey: ApiKey, audit: AuditEntryInput): Promise<void>;
  /** Sets `revokedAt` with its audit entry, in one transaction; WriteConflict when the key was revoked meanwhile. */
  revoke(apiKey: ApiKey, revokedAt: string, audit: AuditEntryInput): Promise<void>;
}

/** What an audited change records; the log adds sequence, time, and the hash chain. */
export interface AuditEntryInput {
  orgId: string;
  type: AuditType;
  actor: Actor;
  clientId: string | null;
  requestId: string | null;
  /** The share the entry is about (share custody events); absent otherwise. */
  shareId?: string | null;
  /** Event `data` as SPEC.md's Event object carries it; never a secret. */
  data: Record<string, unknown>;
}

/** A stored entry: its type as written, which an entry written before a type was retired may still hold. */
export interface AuditEntry extends Omit<AuditEntryInput, 'type'> {
  type: string;
  seq: number;
  occurredAt: string;
  prevHash: string;
  hash: string;
}

export interface AuditTrail {
  /** Records an entry that goes with no other change (for example a refused call). */
  record(entry: AuditEntryInput): Promise<AuditEntry>;
}

export interface RequestQuery {
  orgId: string;
  status?: RequestStatus;
  clientId?: string;
  ticketRef?: string;
  limit: number;
  cursor?: string;
}

/** The sealed credential as the subject's browser made it: ciphertext only. */
export interface SealedMaterial {
  envelope: object;
  attachments: object[];
}

export interface TrailEntry {
  seq: number;
  type: string;
  occurredAt: string;
  actor: { type: string; label: string | null };
  details: Record<string, unknown>;
}

/**
 * A ticket trigger's duplicate guard: one item per (integration, preset, ticket) naming the request
 * it created. Written with the request on condition that it names `previousRequestId` (null: that
 * none exists), so of concurrent triggers one creates and the others lose with a WriteConflict.
 */
export interface TriggerGuard {
  orgId: string;
  integrationId: string;
  preset: string;
  ticketId: string;
  previousRequestId: string | null;
  /**
   * The version of that earlier request as it was read, ended: the new request is made only if it
   * is still that version (a relink that made it live again meanwhile refuses it, WriteConflict).
   */
  previousVersion: number | null;
  /**
   * The integration's version the post was read under: the request is made only if it still is
   * (a disable, rotation or new setting that answered meanwhile refuses it, WriteConflict).
   */
  integrationVersion: number;
}

export interface RequestRepository {
  get(requestId: string): Promise<HandoffRequest | null>;
  list(query: RequestQuery): Promise<{ items: HandoffRequest[]; nextCursor: string | null }>;
  /**
   * Stores the request, its link-token hash, the audit entry (and a trigger's guard) in one
   * transaction, on condition that the organisation's policy version is still `policyVersion`
   * (Organisation.policyVersion as read, 0 when unset): a request judged under a policy or preset
   * that was replaced meanwhile is not made (WriteConflict).
   */
  create(request: HandoffRequest, linkTokenHash: string, audit: AuditEntryInput, guard: TriggerGuard | undefined, policyVersion: number): Promise<AuditEntry>;
  /**
   * Replaces `before` with `after` if nobody changed it meanwhile (else throws WriteConflict),
   * deletes the stored envelope and attachments when `purgeMaterial`, and appends the audit
   * entry, all in one transaction. `followUps` are further entries appended after `audit` in the
   * same transaction (for example credential.rotation_recommended after a completion). Given
   * `policyVersion`, also on condition that the organisation's policy version is still it (a
   * change decided by the policy, such as a ticket's close, is not made under a replaced one).
   * Given `integration`, also on condition that the integration is still at the version read (a
   * status it sent, or one about a ticket linked through it, is not applied as its replaced
   * settings understood it).
   */
  update(
    before: HandoffRequest,
    after: HandoffRequest,
    audit: AuditEntryInput,
    purgeMaterial: boolean,
    followUps?: AuditEntryInput[],
    policyVersion?: number,
    integration?: { id: string; version: number },
  ): Promise<AuditEntry>;
}

/** What a helpdesk read that changes nothing leaves on the request. */
export interface TicketReadNotes {
  /**
   * Notes that the helpdesk was read at `readAt` and still says the verified status the request
   * holds: no audit entry, no new version. Nothing happens if the held status is another by now
   * or a later read is noted already.
   */
  noteTicketRead(request: HandoffRequest, readAt: string): Promise<void>;
}

/** What the subject and member flows need beyond the API's repository. */
export interface HandoffRepository extends RequestRepository {
  findByLinkTokenHash(tokenHash: string): Promise<HandoffRequest | null>;
  /** Replaces `before` with `after` (on its version) and stores the new link token's record, with the audit entry, in one transaction. */
  relink(before: HandoffRequest, after: HandoffRequest, linkTokenHash: string, audit: AuditEntryInput): Promise<AuditEntry>;
  submit(before: HandoffRequest, after: HandoffRequest, material: SealedMaterial, audit: AuditEntryInput, followUps?: AuditEntryInput[]): Promise<AuditEntry>;
  material(requestId: string): Promise<SealedMaterial | null>;
  trail(requestId: string): Promise<TrailEntry[]>;
}

/**
 * The requests' due index as the sweep reads it (store/due-index.ts), apart from the repository
 * so that only the sweep's bundle carries it.
 */
export interface DueRequests {
  /** A page of the byDue index: ids of live requests due at or before `now`, going on from `page.after`. */
  dueBy(now: Date, page?: DuePaging): Promise<DuePage>;
}

/**
 * Where a read of the byDue index stopped: for each shard with more to read, the key to go on
 * from. Opaque to callers, who only pass it back to read on.
 */
export type DueCursor = { readonly [shard: string]: Readonly<Record<string, unknown>> };

export interface DuePaging {
  /** Ids read per shard at most (the store's default if absent). */
  limit?: number;
  /** The `next` of the previous page; absent, every shard is read from its start. */
  after?: DueCursor;
}

export interface DuePage {
  ids: string[];
  /** Where to go on from; null once every shard has been read to its end. */
  next: DueCursor | null;
}

export interface OutboundMessage {
  /** Correlates the message with the request's `delivery.id`. */
  id: string;
  purpose: 'request_link' | 'sign_in' | 'email_code' | 'requester_notice';
}
export interface Notifier {
  sendEmail(message: OutboundMessage & { to: string; subject: string; text: string }): Promise<void>;
  sendSms(message: OutboundMessage & { to: string; text: string }): Promise<void>;
}

/**
 * One-time expiry triggers, one per request: deployed, an EventBridge Scheduler schedule that
 * invokes the expiry worker; locally, a timer. Scheduling is best effort: a caller tolerates a
 * failure (the periodic sweep expires whatever a lost or missing schedule left behind).
 */
export interface ExpiryScheduler {
  /** Fires the expiry worker for the request at `atIso` (or soon after); replaces an earlier schedule of the same request. */
  schedule(requestId: string, atIso: string): Promise<void>;
  /** Removes the request's schedule, if any; a missing one is not an error. */
  cancel(requestId: string): Promise<void>;
}

/**
 * One-time purge triggers, one per request: a ticket closed with a grace period destroys the
 * stored credential at the period's end. The same shape as expiry, a second kind of schedule
 * (deployed `purge-<requestId>` beside `expire-<requestId>`, invoking the purge worker; locally a
 * timer). Best effort too: the sweep purges whatever a lost schedule left behind.
 */
export type PurgeScheduler = ExpiryScheduler;

/**
 * The queue that drives webhook delivery: deployed, SQS; locally, a timer. A message carries only
 * the delivery's id; its state lives in the table, so a lost message is re-driven by the sweep.
 */
export interface DeliveryQueue {
  /**
   * Delivers `{deliveryId, lane}` to the delivery worker after `delaySeconds` (0 to 900), in the
   * route's lane and group (core/delivery-lanes.ts); without a route, in the fast lane, ungrouped
   * (the worker moves it if its subscription is slow).
   */
  send(deliveryId: string, delaySeconds: number, route?: DeliveryRoute): Promise<void>;
}

/** One outbound webhook POST; redirects are never followed. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** Posts a webhook and answers the HTTP status; throws when no answer came (refused, timeout, network). */
export interface WebhookPoster {
  post(request: WebhookRequest): Promise<{ status: number }>;
}

/** The audit chain as certificates read it (DESIGN.md: certificates are built from the chain alone). */
export interface CertificateSource {
  /** The chain entries about a request, whole (content and hash), ascending by seq. */
  entriesOfRequest(orgId: string, requestId: string): Promise<AuditEntry[]>;
  entriesOfShare(orgId: string, shareId: string): Promise<AuditEntry[]>;
  /** The organisation's chain head now. */
  head(orgId: string): Promise<{ seq: number; hash: string }>;
}
