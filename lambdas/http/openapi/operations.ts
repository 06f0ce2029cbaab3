import type { $ZodType } from 'zod/v4/core';
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '#core/events.ts';
import { ID_PATTERN } from '#core/ids.ts';
import { MAX_SIGNATURE_AGE_SECONDS } from '#core/inbound/auth-check.ts';
import { DEFAULT_MAPPING, MAX_TICKET_ID_LENGTH } from '#core/inbound/mapping.ts';
import { createRequestBody, generateBody, listRequestsQuery, requestIdPath } from '#core/schemas.ts';
import { certificateQuery } from '#core/use-cases/certificates/issue-certificate.ts';
import { listEventsQuery } from '#core/use-cases/list-events.ts';
import { MAX_TICKET_REF, ticketStatusBody } from '#core/use-cases/tickets/mark-ticket-status.ts';
import { createWebhookBody } from '#core/use-cases/webhooks.ts';
import type { ROUTES } from '../routes.ts';
import { MAX_BODY_BYTES } from '../request-limits.ts';
import { inputSchema, type JsonSchema } from './json-schema.ts';
import {
  custodyCertificate,
  eventList,
  generatedCredential,
  inboundAcceptance,
  jsonWebKeySet,
  pingResult,
  requestCreationResult,
  relinkResult,
  requestList,
  requestObject,
  ticketStatusAcceptance,
  webhookCreationResult,
  webhookList,
} from './objects.ts';

/**
 * What the document says of each route it covers, beside what the route table says (method, path,
 * scope). Every parameter and body schema here is the one the handler parses with; the response
 * bodies are the objects of objects.ts.
 */

/** The error codes an operation can answer, with their status and what they mean (SPEC.md, Errors). */
export const ERROR_CODES = {
  bad_request: [400, 'The body is not valid JSON.'],
  unauthenticated: [401, 'The API key is missing, unknown, revoked or expired.'],
  forbidden: [403, 'The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist.'],
  plan_required: [403, 'The plan does not include the API.'],
  not_found: [404, 'No such record within the key\u2019s scope.'],
  illegal_transition: [409, 'The request\u2019s state does not allow the operation.'],
  conflict: [409, 'The same Idempotency-Key is still being processed (a concurrent duplicate).'],
  payload_too_large: [413, `The body is over the size limit (${MAX_BODY_BYTES / (1024 * 1024)} MiB).`],
  request_header_fields_too_large: [431, 'The request line and header values together are over the size limit (10,240 bytes).'],
  validation_failed: [422, 'Invalid body, query or header; `errors` lists the fields.'],
  idempotency_key_reused: [422, 'The same Idempotency-Key was used with a different body.'],
  rate_limited: [429, 'Too many calls: retry after the seconds in `Retry-After`.'],
  service_unavailable: [503, 'A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`.'],
} as const satisfies Record<string, readonly [number, string]>;
export type ErrorCode = keyof typeof ERROR_CODES;

/** Who sends the `ping` event: never a subscription, only a test action. */
export const PING_SENDERS =
  '`ping` is sent only by a test action, the app\u2019s Send test ping or the operator CLI\u2019s `webhook-ping`, to the one subscription it tests; it cannot be subscribed to';

/** A code, or a code with what it means on this operation. */
export type ErrorAnswer = ErrorCode | readonly [ErrorCode, string];

export interface Operation {
  tag: string;
  summary: string;
  description?: string;
  /** Each path parameter of the route's template. */
  path?: Record<string, { schema: JsonSchema; description: string }>;
  /** The schema the handler parses `queryStringParameters` with, and a note per parameter. */
  query?: { schema: $ZodType; notes?: Record<string, string> };
  body?: {
    /** The schema the handler parses the body with; a plain JSON Schema only for a body no schema reads. */
    schema: $ZodType | JsonSchema;
    required: boolean;
    /** A note per field. */
    notes?: Record<string, string>;
    /** Keywords per field for what the use case judges after the shape, from the constants it judges with. */
    judgedAfter?: Record<string, JsonSchema>;
    mediaTypes?: readonly string[];
  };
  success: {
    status: number;
    description: string;
    /** Media type to the answer's object (a named object of objects.ts) or schema; none for an empty answer. */
    content?: Record<string, $ZodType | JsonSchema>;
    headers?: readonly ('Location' | 'Idempotency-Replayed')[];
  };
  /** The operation's own error answers, beside those every call with a key or every POST can get. */
  errors: readonly ErrorAnswer[];
}

type RouteName = keyof typeof ROUTES;
type PathOf<Name extends RouteName> = (typeof ROUTES)[Name]['path'];
/** The routes the document covers: the public API, the inbound ticket URLs and the signing keys. */
export type DocumentedRouteName = {
  [Name in RouteName]: PathOf<Name> extends `/v1/${string}` | `/inbound/${string}` | '/.well-known/jwks.json' ? Name : never;
}[RouteName];

/** Whether the document covers the route; the pages and the web pages' own endpoints it does not. */
export const isDocumentedPath = (path: string) => path.startsWith('/v1/') || path.startsWith('/inbound/') || path === '/.well-known/jwks.json';

const idParameter = (what: string) => ({
  schema: { type: 'string', pattern: ID_PATTERN.source },
  description: `The ${what}\u2019s id, a ULID. An id that cannot exist answers 404.`,
});
const requestIdParameter = {
  schema: (inputSchema(requestIdPath).properties as Record<string, JsonSchema>).id,
  description: 'The request\u2019s id, a ULID. An id that cannot exist answers 404.',
};

const certificateContent = {
  'application/json': custodyCertificate,
  'application/pdf': { type: 'string', contentMediaType: 'application/pdf', description: 'The certificate rendered as a PDF document.' },
};
const certificateQueryNotes = { format: '`json` (the signed document) or `pdf` (the same rendered).' };

/** Where an inbound URL reads its fields by default; an integration can map other positions (dotted paths). */
const inboundFields = (fields: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  description:
    'Read from JSON, a form-encoded body or the query string (the body wins at the same path; an integration that signs its posts is read from the body alone, since the signature does not cover the query string). These are the default field positions; an integration can be configured with dotted paths naming where they sit in another shape.',
  properties: fields,
  additionalProperties: true,
});
const ticketIdField: JsonSchema = {
  type: ['string', 'integer'],
  maxLength: MAX_TICKET_ID_LENGTH,
  description: 'The ticket reference, exactly as on the request (same capitals and prefix).',
};
const inboundUrlParameter = {
  secret: { schema: { type: 'string' }, description: 'The secret part of the URL the integration shows. A wrong or rotated URL answers 404.' },
};
const inboundErrors: readonly ErrorAnswer[] = [
  ['unauthenticated', 'The configured shared header or signature is missing or does not match.'],
  ['not_found', 'A wrong or rotated URL.'],
  ['conflict', 'The integration is disabled.'],
  ['rate_limited', 'Too many posts: retry after the seconds in `Retry-After`.'],
  'payload_too_large',
  'service_unavailable',
];
const inboundDescription =
  'Authenticated by the secret in the URL. Optional hardening: a shared-secret header (configured name and value), or ' +
  '`X-Service-Signature: t=<unix_timestamp>,v1=<signature>`, the lower-case hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with ' +
  `the configured signing secret, within ${MAX_SIGNATURE_AGE_SECONDS} seconds of now.`;

export const OPERATIONS: Record<DocumentedRouteName, Operation> = {
  ping: {
    tag: 'Keys',
    summary: 'Verify a key',
    description: 'Who the key belongs to and what it may do. Any scope.',
    success: { status: 200, description: 'The key\u2019s organisation, name, scopes and client.', content: { 'application/json': pingResult } },
    errors: [],
  },
  generate: {
    tag: 'Credentials',
    summary: 'Generate a password or passphrase',
    description: 'Nothing is stored, logged or tied to a request. Any scope.',
    body: {
      schema: generateBody,
      required: false,
      notes: {
        length: 'Characters of a password. Within its bounds whatever the type; a passphrase ignores it.',
        lower: 'At least one of lower, upper, digits and symbols must be on for a password.',
      },
    },
    success: { status: 200, description: 'The credential, shown once.', content: { 'application/json': generatedCredential }, headers: ['Idempotency-Replayed'] },
    errors: ['validation_failed'],
  },
  listRequests: {
    tag: 'Requests',
    summary: 'List requests',
    description: 'Newest first; draft requests are never listed. A client-scoped key sees only its client\u2019s requests.',
    query: {
      schema: listRequestsQuery,
      notes: { cursor: 'The `next_cursor` of the previous page.', ticket_ref: 'Only requests quoting this ticket reference.' },
    },
    success: { status: 200, description: 'A page of requests.', content: { 'application/json': requestList } },
    errors: [['forbidden', 'Also: `client_id` names another client than the key\u2019s.'], 'validation_failed'],
  },
  createRequest: {
    tag: 'Requests',
    summary: 'Create and commit a request',
    description:
      'Recipients are active members of the organisation, addressed by email; each must have set up an identity key. The requester defaults to the first recipient. ' +
      'The service computes the recipient commitment and returns the complete link, with its fragment, once. The challenge code goes to the subject apart from the link.',
    body: {
      schema: createRequestBody,
      required: true,
      notes: {
        subject_name: 'The person handing over the credential. Trimmed: spaces around it are removed before its length is counted.',
        subject_email: 'Needed for emailed one-time codes and for delivery by email.',
        subject_phone: 'Needed for delivery by SMS. E.164 preferred; a national number is read in the platform default country (UK). Stored and returned as E.164.',
        justification: 'Required unless the preset supplies one. Trimmed before its length is counted.',
        recipients: 'Required unless the preset supplies them. Each needs an identity key.',
        requester: 'The member recorded as requester; defaults to the first recipient; always a recipient.',
        teams: 'Members of these teams are added as recipients. With teams and no `recipients`, `requester` is required. Listed members, team members and the requester together make at most 64 recipients (422 on `teams`, or on `recipients` without teams): the subject\'s browser seals the credential to each.',
        preset: 'A preset slug (Team plan and above): its saved defaults apply first, and the other fields override them.',
        ticket_ref: 'Closing the ticket can destroy the credential, per policy. Trimmed, as the path and the filter read it; blank is refused.',
        ticket_url: 'An http or https URL, kept and answered normalised: the host in punycode, spaces and the characters RFC 3986 does not allow escaped. A `%` that begins no escape of two hex digits is refused.',
        ttl_minutes: 'Must be one of the policy\u2019s options; defaults to the policy default.',
        verification_mode: 'At least the policy minimum; defaults to the policy default.',
        allow_attachments: 'Default false.',
        delivery: '`none` (default): the caller delivers the returned link; `email` or `sms`: the service sends it; `ticket_reply`: posted as a customer-visible reply on the linked ticket (needs a reply-capable ticketing integration).',
      },
    },
    success: {
      status: 201,
      description: 'The request, its link (once) and the commitment.',
      content: { 'application/json': requestCreationResult },
      headers: ['Location', 'Idempotency-Replayed'],
    },
    errors: ['validation_failed'],
  },
  getRequest: {
    tag: 'Requests',
    summary: 'Read a request',
    path: { id: requestIdParameter },
    success: { status: 200, description: 'The request.', content: { 'application/json': requestObject } },
    errors: ['not_found'],
  },
  revokeRequest: {
    tag: 'Requests',
    summary: 'Revoke a request',
    description: 'A `pending` or `opened` request becomes `revoked` and its link stops working. No body.',
    path: { id: requestIdParameter },
    success: { status: 200, description: 'The revoked request.', content: { 'application/json': requestObject }, headers: ['Idempotency-Replayed'] },
    errors: ['not_found', ['illegal_transition', 'The request is not `pending` or `opened`.']],
  },
  completeRequest: {
    tag: 'Requests',
    summary: 'Complete a request and purge its credential',
    description: 'Purges the envelope and attachments of a `submitted` request and marks it `completed`. Irreversible. No body.',
    path: { id: requestIdParameter },
    success: { status: 200, description: 'The completed request.', content: { 'application/json': requestObject }, headers: ['Idempotency-Replayed'] },
    errors: ['not_found', ['illegal_transition', 'The request is not `submitted`.']],
  },
  relinkRequest: {
    tag: 'Requests',
    summary: 'Give a request a new link',
    description:
      'An extension of the specification. For a request whose link was sent to the wrong person, was locked by wrong codes (`needs_relink`), was made unusable by a recipient\u2019s new key (`needs_relink`), has used up every code it may email in mode `email_otp` or `both` (`needs_relink`), was revoked, or expired before anything was submitted: ' +
      'a new link and, when the verification mode needs one, a new challenge code, both shown once; the old link and code stop working at once (the old link\u2019s page says it was replaced). ' +
      'The recipients are resolved again from the members as they are now, the commitment computed again, the link\u2019s lifetime restarted, and the request is `pending` again, with `needs_relink` false. ' +
      'A submitted, completed, or expired-after-submission request answers 409. Audited as `request.relinked`. No body.',
    path: { id: requestIdParameter },
    success: { status: 200, description: 'The request and its new link (once).', content: { 'application/json': relinkResult }, headers: ['Idempotency-Replayed'] },
    errors: [
      'not_found',
      ['illegal_transition', 'The request was submitted, completed, or expired after a submission.'],
      ['validation_failed', 'No recipient can receive a credential any more (`errors.recipients`).'],
    ],
  },
  markTicketStatus: {
    tag: 'Tickets',
    summary: 'Mark a ticket\u2019s status',
    description:
      'Applies the status to every request and share of the key\u2019s scope linked to the ticket or quoting its reference. Tickets linked through a ticketing integration follow that integration\u2019s path and are verified where the adapter can read tickets; ' +
      'a status sent with a key is otherwise unverified and destroys credentials only when the organisation trusts unverified statuses. `closed` (and `resolved`, per policy) destroys the credential and completes the request; `open` or `pending` inside the grace window cancels a scheduled destruction.',
    path: {
      ref: {
        schema: { type: 'string', minLength: 1, maxLength: MAX_TICKET_REF },
        description: 'The ticket reference exactly as entered on the request, or the external id of a linked ticket.',
      },
    },
    body: { schema: ticketStatusBody, required: true, notes: { integration_id: 'Only match tickets linked through this integration.' } },
    success: {
      status: 202,
      description: 'What the status matched.',
      content: { 'application/json': ticketStatusAcceptance },
      headers: ['Idempotency-Replayed'],
    },
    errors: ['validation_failed'],
  },
  requestCertificate: {
    tag: 'Certificates',
    summary: 'Custody certificate of a request',
    description:
      'Who requested it, the fingerprints of the keys it was sealed to, and when it was submitted, revealed and purged: a signed document anyone can check offline with `verify-custody-certificate` and the keys at /.well-known/jwks.json.',
    path: { id: requestIdParameter },
    query: { schema: certificateQuery, notes: certificateQueryNotes },
    success: { status: 200, description: 'The certificate.', content: certificateContent },
    errors: ['not_found', 'validation_failed'],
  },
  shareCertificate: {
    tag: 'Certificates',
    summary: 'Custody certificate of a share',
    description: 'The sealed-to recipient fingerprint and the custody events created, revealed, expired and purged, signed as for a request.',
    path: { id: idParameter('share') },
    query: { schema: certificateQuery, notes: certificateQueryNotes },
    success: { status: 200, description: 'The certificate.', content: certificateContent },
    errors: ['not_found', 'validation_failed'],
  },
  listEvents: {
    tag: 'Events',
    summary: 'Read the event feed',
    description: 'Events in the order they happened, identical to webhook payloads. A client-scoped key sees only its client\u2019s events.',
    query: {
      schema: listEventsQuery,
      notes: {
        since: '`0` starts from the oldest retained event; otherwise the previous answer\u2019s `next_cursor`.',
        types: `Comma-separated event types to include: ${EVENT_TYPES.join(', ')}.`,
      },
    },
    success: { status: 200, description: 'A page of events.', content: { 'application/json': eventList } },
    errors: ['validation_failed'],
  },
  listWebhooks: {
    tag: 'Webhooks',
    summary: 'List webhook subscriptions',
    description: 'The subscriptions visible to the key: all of the organisation\u2019s, or a client-scoped key\u2019s own.',
    success: { status: 200, description: 'The subscriptions.', content: { 'application/json': webhookList } },
    errors: [],
  },
  createWebhook: {
    tag: 'Webhooks',
    summary: 'Subscribe a URL to events',
    description: 'The subscription is owned by the key, and client-scoped when the key is. Its signing secret is shown once.',
    body: {
      schema: createWebhookBody,
      required: true,
      notes: { url: 'https only, on a public host.', events: `Subscribable event types; ${PING_SENDERS}.` },
      judgedAfter: { url: { format: 'uri' }, events: { items: { enum: [...SUBSCRIBABLE_EVENT_TYPES] } } },
    },
    success: {
      status: 201,
      description: 'The subscription with its signing secret.',
      content: { 'application/json': webhookCreationResult },
      headers: ['Location', 'Idempotency-Replayed'],
    },
    errors: ['validation_failed'],
  },
  deleteWebhook: {
    tag: 'Webhooks',
    summary: 'Unsubscribe',
    path: { id: idParameter('webhook') },
    success: { status: 204, description: 'Deleted; no body.' },
    errors: ['not_found'],
  },
  openapi: {
    tag: 'Document',
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of the API. No key needed.',
    success: { status: 200, description: 'This document.', content: { 'application/json': { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
    errors: [],
  },
  jwks: {
    tag: 'Certificates',
    summary: 'Certificate signing keys',
    description: 'Every key that ever signed a certificate (RFC 7517), for `verify-custody-certificate`. No key needed; cacheable for a few minutes.',
    success: { status: 200, description: 'The key set.', content: { 'application/jwk-set+json': jsonWebKeySet } },
    errors: ['service_unavailable'],
  },
  inboundTicketStatus: {
    tag: 'Inbound ticket URLs',
    summary: 'A generic ticket webhook: a ticket\u2019s status changed',
    description:
      `${inboundDescription} The status is understood in any capitals (open, new, pending, on hold, resolved, solved, closed, complete, completed); any other value becomes \`unknown\` and never purges until mapped. ` +
      'Such posts are unverified: they update the ticket but destroy nothing unless the organisation trusts unverified webhooks. Every usable or unusable post answers 202, including one for an unknown ticket.',
    path: inboundUrlParameter,
    body: {
      schema: inboundFields({
        [DEFAULT_MAPPING.ticketId[0]]: ticketIdField,
        [DEFAULT_MAPPING.status[0]]: { type: ['string', 'number'], description: 'The ticket\u2019s status in the helpdesk\u2019s words.' },
      }),
      required: false,
      mediaTypes: ['application/json', 'application/x-www-form-urlencoded'],
    },
    success: { status: 202, description: 'What the service understood of the post.', content: { 'application/json': inboundAcceptance }, headers: ['Idempotency-Replayed'] },
    errors: inboundErrors,
  },
  inboundTicketTrigger: {
    tag: 'Inbound ticket URLs',
    summary: 'A generic ticket trigger: create a request for a ticket',
    description:
      `${inboundDescription} Creates a request linked to the ticket, with the link sent as the preset says (Team plan and above). ` +
      'Posting twice for the same ticket and preset creates no duplicate while the first request is open. When no request can be created, a `Ticket trigger failed` entry with the reason is audited.',
    path: inboundUrlParameter,
    body: {
      schema: inboundFields({
        [DEFAULT_MAPPING.ticketId[0]]: ticketIdField,
        subject: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'The person who will send the credential. Required.' },
            email: { type: 'string', description: 'Needed when the preset sends an emailed code or emails the link.' },
            phone: { type: ['string', 'number'], description: 'Needed when the preset texts the link or a code.' },
          },
        },
        preset: { type: 'string', description: 'A preset slug; without it the client\u2019s default preset, then the organisation\u2019s, then the policy defaults.' },
        requester_email: { type: 'string', description: 'The technician who owns the request, when the preset takes the requester from the ticket.' },
      }),
      required: false,
      mediaTypes: ['application/json', 'application/x-www-form-urlencoded'],
    },
    success: { status: 202, description: 'What the service understood of the post.', content: { 'application/json': inboundAcceptance }, headers: ['Idempotency-Replayed'] },
    errors: inboundErrors,
  },
};
