import * as z from 'zod/mini';
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '#core/events.ts';
import { ID_PATTERN } from '#core/ids.ts';
import { DELIVERY_METHODS, REQUEST_STATUSES, SCOPES, TICKET_STATUSES, VERIFICATION_MODES } from '#core/model.ts';

/**
 * The objects the public API answers with (SPEC.md, Resources and their fields), as schemas: the
 * single description of each response body. docs/openapi.json is generated from them, and the
 * tests check every answer they read against them, so the document and the service cannot drift.
 * Only the document generator and the tests import this module: no function bundles it.
 */

/** Where each object's name and description live; the document's `components.schemas` are made from it. */
export const API_OBJECTS = z.registry<{ id?: string; description?: string }>();

const named = <S extends z.core.$ZodType>(id: string, description: string, schema: S) => {
  API_OBJECTS.add(schema, { id, description });
  return schema;
};
const noted = <S extends z.core.$ZodType>(description: string, schema: S) => {
  API_OBJECTS.add(schema, { description });
  return schema;
};

const ulid = () => z.string().check(z.regex(ID_PATTERN));
/** RFC 3339 with a zone, as `toISOString()` writes it. */
const dateTime = () => z.iso.datetime({ offset: true });
/** Emails as they were accepted (members' and subjects'); the shape only, the service checked them on the way in. */
const email = () => z.email({ pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/ });
const webUrl = () => z.url({ protocol: /^https?$/ });
const count = () => z.int().check(z.minimum(0));

export const requestObject = named(
  'Request',
  'A credential handoff request. It carries no envelope material, link token, code or key.',
  z.strictObject({
    id: ulid(),
    object: z.literal('request'),
    status: z.enum(REQUEST_STATUSES),
    client: z.strictObject({ id: ulid(), name: z.string() }),
    subject: z.strictObject({
      name: z.string(),
      email: z.nullable(email()),
      phone: noted('E.164.', z.nullable(z.string().check(z.regex(/^\+[1-9]\d{6,14}$/)))),
    }),
    ticket: z.nullable(
      z.strictObject({
        ref: z.nullable(z.string()),
        url: z.nullable(z.url()),
        external_id: z.nullable(z.string()),
        integration_id: z.nullable(ulid()),
        status: z.nullable(z.enum(TICKET_STATUSES)),
      }),
    ),
    justification: z.string(),
    template: z.nullable(z.strictObject({ id: ulid(), name: z.string() })),
    requester: z.strictObject({ membership_id: ulid(), name: z.nullable(z.string()), email: z.nullable(email()) }),
    recipients: noted(
      'Labels only: identity keys never leave the browser.',
      z.array(z.strictObject({ label: z.string(), membership_id: z.nullable(ulid()) })),
    ),
    ttl_minutes: noted('How long a submitted credential is kept.', z.int()),
    verification_mode: z.enum(VERIFICATION_MODES),
    allow_attachments: z.boolean(),
    attachments_count: count(),
    needs_relink: z.boolean(),
    unrecoverable: z.boolean(),
    reveal_count: count(),
    purge_reason: z.nullable(z.string()),
    revoked_reason: z.nullable(z.string()),
    created_at: dateTime(),
    link_expires_at: z.nullable(dateTime()),
    opened_at: z.nullable(dateTime()),
    submitted_at: z.nullable(dateTime()),
    record_expires_at: z.nullable(dateTime()),
    last_revealed_at: z.nullable(dateTime()),
    purge_scheduled_at: z.nullable(dateTime()),
    completed_at: z.nullable(dateTime()),
    revoked_at: z.nullable(dateTime()),
    links: z.strictObject({ self: webUrl(), app: webUrl() }),
  }),
);

export const requestList = named(
  'RequestList',
  'A page of requests, newest first.',
  z.strictObject({
    object: z.literal('list'),
    data: z.array(requestObject),
    has_more: z.boolean(),
    next_cursor: noted('The `cursor` of the next page; null on the last. A page filtered by `status` and `client_id` together (the `status` of a client-scoped key too), or `ticket_ref` with either, looks through at most 2,000 requests, so it may hold fewer than `limit`, even none, while `has_more` is true.', z.nullable(ulid())),
  }),
);

/** A request's link as a creation or a relink hands it out: shown once, null in an idempotent replay. */
const linkShownOnce = (notes: { commit: string; challengeCode: string; excluded: string }) => ({
  request: requestObject,
  link: noted('The complete link with its fragment; null on an idempotent replay.', z.nullable(webUrl())),
  link_without_fragment: noted('Null on an idempotent replay.', z.nullable(webUrl())),
  commit: noted(notes.commit, z.string().check(z.regex(/^[A-Za-z0-9_-]{22}$/))),
  challenge_code: noted(`${notes.challengeCode} Null on an idempotent replay.`, z.nullable(z.string().check(z.regex(/^[0-9]{6}$/)))),
  excluded_recipients: noted(notes.excluded, z.array(z.string())),
  commitment: z.strictObject({ computed_by: z.literal('server'), note: z.string().check(z.minLength(1)) }),
});

export const requestCreationResult = named(
  'RequestCreationResult',
  'A created request with its link. The secret fields are shown once: null in an idempotent replay.',
  z.strictObject({
    ...linkShownOnce({
      commit: 'The recipient commitment, which forms the fragment.',
      challengeCode: 'The spoken code when the verification mode needs one; hand it to the subject apart from the link.',
      excluded: 'Names of members left out because their key could not be verified; empty when all were included.',
    }),
    delivery: z.nullable(
      z.strictObject({
        id: ulid(),
        method: z.enum(DELIVERY_METHODS),
        status: z.optional(noted('Whether the link went out: for `email` and `sms`, whether the mail or text service took the message; for `ticket_reply`, whether the helpdesk took the comment. On `failed`, send the link another way. An idempotent replay says what the first call said; `unconfirmed` while that call has not said it, because it is still sending or stopped after storing the request (retry a minute later; if it still says `unconfirmed`, the link may not have gone out, and a replay holds no link: issue a new one if the subject did not get it).', z.enum(['sent', 'failed', 'unconfirmed']))),
        reason: z.optional(noted('When it failed or is unconfirmed: why, and what to do, in words.', z.string())),
      }),
    ),
  }),
);

export const relinkResult = named(
  'RelinkResult',
  'A request given a new link: pending again, with a new link and code shown once (null in an idempotent replay); the old link and code no longer work.',
  z.strictObject(
    linkShownOnce({
      commit: 'The recipient commitment computed again from the recipients\u2019 current keys; it forms the fragment.',
      challengeCode: 'A new spoken code when the verification mode needs one (the old one no longer works).',
      excluded: 'Names of recipients left out this time: disabled since, or their replaced key awaits approval; empty when all were kept.',
    }),
  ),
);

export const generatedCredential = named(
  'GeneratedCredential',
  'A generated password or passphrase. Nothing is stored, logged or tied to a request.',
  z.strictObject({
    object: z.literal('generated_credential'),
    type: z.enum(['password', 'passphrase']),
    value: noted('Never stored, so null on an idempotent replay.', z.nullable(z.string())),
    length: z.int(),
  }),
);

export const pingResult = named(
  'PingResult',
  'Who the key belongs to and what it may do.',
  z.strictObject({
    ok: z.literal(true),
    organisation: z.strictObject({ id: ulid(), name: z.string() }),
    key: z.strictObject({
      name: z.string(),
      prefix: z.string(),
      scopes: z.array(z.enum(SCOPES)),
      client: z.nullable(z.strictObject({ id: ulid(), name: z.string() })),
      expires_at: z.nullable(dateTime()),
    }),
    label: noted('A human label for the connection.', z.string()),
  }),
);

export const eventObject = named(
  'Event',
  'An event of the organisation, derived from its audit chain: the same object in GET /v1/events and in a webhook delivery. De-duplicate on `id`.',
  z.strictObject({
    id: noted('Stable per organisation.', z.string().check(z.regex(/^evt_[0-9]+$/))),
    object: z.literal('event'),
    type: z.enum(EVENT_TYPES),
    occurred_at: dateTime(),
    organisation_id: ulid(),
    client_id: z.nullable(ulid()),
    seq: noted('The `since` cursor value that includes this event: a feed read with `since` at or after it has had it (`since` is exclusive, so `next_cursor` after this event is its `seq`); resume with `since` one less to read it again.', z.nullable(z.int())),
    data: z.strictObject({
      request: z.optional(requestObject),
      member: z.optional(z.strictObject({ membership_id: ulid(), name: z.nullable(z.string()), email: z.nullable(email()) })),
      justification: z.optional(z.string()),
      details: noted(
        'Audit metadata such as purge_reason, revoked_reason, reveal_count, channel; empty when there is none; never secrets.',
        z.record(z.string(), z.unknown()),
      ),
      actor: z.strictObject({ type: z.enum(['member', 'subject', 'system', 'api']), label: z.nullable(z.string()) }),
    }),
  }),
);

export const eventList = named(
  'EventList',
  'Events in the order they happened.',
  z.strictObject({
    object: z.literal('list'),
    data: z.array(eventObject),
    has_more: z.boolean(),
    next_cursor: noted('The `since` of the next call.', z.string().check(z.regex(/^[0-9]+$/))),
  }),
);

const webhookFields = {
  id: ulid(),
  object: z.literal('webhook'),
  url: noted('An https URL on a public host.', z.url()),
  description: z.nullable(z.string()),
  events: z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES)),
  is_active: z.boolean(),
  client_id: noted('Set when the creating key is client-scoped: only that client\u2019s events are sent.', z.nullable(ulid())),
  created_via: z.enum(['ui', 'api']),
  failing_since: z.nullable(dateTime()),
  last_delivered_at: z.nullable(dateTime()),
  created_at: dateTime(),
};

export const webhookObject = named('Webhook', 'A webhook subscription. Its signing secret is never shown again after creation.', z.strictObject(webhookFields));

export const webhookCreationResult = named(
  'WebhookCreationResult',
  'A created webhook subscription with its signing secret, shown this once.',
  z.strictObject({
    ...webhookFields,
    secret: noted('The signing secret (`whsec_` and base64); null on an idempotent replay.', z.nullable(z.string().check(z.regex(/^whsec_/)))),
  }),
);

export const webhookList = named('WebhookList', 'The subscriptions the key may see.', z.strictObject({ object: z.literal('list'), data: z.array(webhookObject) }));

export const ticketStatusAcceptance = named(
  'TicketStatusAcceptance',
  'What a ticket status matched. Statuses sent with an API key are unverified.',
  z.strictObject({
    accepted: z.literal(true),
    ticket_ref: z.string(),
    status: z.enum(['open', 'pending', 'resolved', 'closed']),
    matched: z.strictObject({ ticket_links: count(), requests: z.array(ulid()), shares: z.array(ulid()) }),
    verified: z.literal(false),
    note: z.string(),
  }),
);

export const custodyCertificate = named(
  'CustodyCertificate',
  'A signed, offline-verifiable custody certificate of format `service-custody/v1`; check it with `verify-custody-certificate`. ' +
    'It holds no secret material. The members beyond those listed here are described by the verification tool.',
  z.looseObject({
    format: z.literal('service-custody/v1'),
    subject_kind: z.enum(['request', 'share']),
    certificate_id: z.string(),
    issued_at: dateTime(),
    final: noted('False while the request or share has not ended.', z.boolean()),
    destruction: noted(
      "What destroying the credential deleted, and what it could not: its ciphertext is deleted from the service's table (`scope` `live_table`), " +
        "while the table's point-in-time backups hold it, encrypted, until `backups.ciphertext_restorable_until`.",
      z.looseObject({
        destroyed: z.boolean(),
        at: z.nullable(dateTime()),
        reason: z.nullable(z.string()),
        seq: noted('The audit chain entry of the destruction.', z.nullable(z.int().check(z.minimum(1)))),
        scope: z.literal('live_table'),
        ciphertext_stored: noted('False when no credential was ever submitted, so the service never held its ciphertext.', z.boolean()),
        backups: z.strictObject({
          point_in_time_recovery_days: noted("Days of point-in-time recovery the service's table keeps; 0 where it keeps none.", z.int().check(z.minimum(0), z.maximum(35))),
          ciphertext_restorable_until: noted(
            'Until when those backups can restore the deleted ciphertext: `at` plus the recovery days. Null when no backup holds it (nothing destroyed yet, nothing stored, or no backups).',
            z.nullable(dateTime()),
          ),
        }),
      }),
    ),
    signature: z.strictObject({ alg: z.string(), kid: z.string(), value: z.string() }),
  }),
);

export const jsonWebKeySet = named(
  'JsonWebKeySet',
  'Every certificate signing key ever used (RFC 7517), the current one first; retired keys stay, marked `retired_at`.',
  z.strictObject({
    keys: z.array(
      z.looseObject({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519'),
        x: z.string(),
        kid: z.string(),
        alg: z.optional(z.string()),
        use: z.optional(z.literal('sig')),
        created_at: z.optional(dateTime()),
        retired_at: z.optional(dateTime()),
      }),
    ),
  }),
);

export const inboundAcceptance = named(
  'InboundAcceptance',
  'What the service understood of an inbound post, and why it could not be used when it could not. It never says whether the ticket exists.',
  z.discriminatedUnion('url', [
    z.strictObject({
      accepted: z.literal(true),
      url: z.literal('webhook'),
      ticket_id: z.nullable(z.string()),
      status: z.enum(TICKET_STATUSES),
      status_received: z.nullable(z.string()),
      problem: z.nullable(z.string()),
    }),
    z.strictObject({
      accepted: z.literal(true),
      url: z.literal('trigger'),
      ticket_id: z.nullable(z.string()),
      preset: z.nullable(z.string()),
      problem: z.nullable(z.string()),
    }),
  ]),
);

export const errorBody = named(
  'Error',
  'Every error answer. A validation error adds `errors`, keyed by field, each with its messages.',
  z.strictObject({
    message: z.string().check(z.minLength(1)),
    code: z.string(),
    errors: z.optional(z.record(z.string(), z.array(z.string()).check(z.minLength(1)))),
  }),
);
