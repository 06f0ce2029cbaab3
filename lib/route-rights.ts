/**
 * Which API routes get which AWS rights and environment beyond the table, by route name: the
 * lists lib/api-functions.ts builds each function's role and variables from.
 */

/**
 * The routes whose handlers arm a request's or a share's expiry schedule (creation, submission,
 * a new link, a ticket status that reopens) and may cancel it. Looked up by name: a name missing
 * from the route table fails the synth, rather than deploying a function that silently cannot
 * schedule.
 */
export const SCHEDULING_ROUTES: readonly string[] = [
  'createRequest',
  'appCreateRequest',
  'relinkRequest',
  'subjectSubmit',
  'appRelinkRequest',
  // A share arms its expiry when made.
  'appCreateShare',
  // A ticket status completes or revokes (cancelling the expiry) and destroys shares; the trigger creates (arming it).
  'markTicketStatus',
  'inboundTicketStatus',
  'inboundTicketTrigger',
];

/**
 * The routes whose handlers only ever cancel an expiry schedule: they end a request (revoke,
 * complete) or destroy a share (its creator's purge, its last view), and a request or share that
 * has ended has nothing to arm. DeleteSchedule alone: no CreateSchedule, so none of them could
 * point a schedule at the expiry worker, and no role to pass.
 */
export const SCHEDULE_CANCELLING_ROUTES: readonly string[] = ['revokeRequest', 'completeRequest', 'appComplete', 'appRevokeRequest', 'appPurgeShare', 'shareOpen'];

/** The routes whose handlers arm or cancel a grace-period purge: the two ways a ticket status arrives. */
export const PURGE_SCHEDULING_ROUTES: readonly string[] = ['markTicketStatus', 'inboundTicketStatus'];

/** The routes whose handlers queue ticket checks: a closing status for a ticket linked through a connected helpdesk. */
export const TICKET_CHECK_ROUTES: readonly string[] = ['markTicketStatus', 'inboundTicketStatus'];

/** The routes whose handlers create requests: `ticket_reply` invokes the ticket-check worker to post the link (it alone opens helpdesk credentials). */
export const TICKET_REPLY_ROUTES: readonly string[] = ['createRequest', 'appCreateRequest', 'inboundTicketTrigger'];

/** The route that seals an integration's helpdesk credentials (connecting it), and the one that opens them to read a ticket for the admin. */
export const HELPDESK_SEALING_ROUTES: readonly string[] = ['appConnectHelpdesk'];
export const HELPDESK_OPENING_ROUTES: readonly string[] = ['appCheckHelpdesk'];

/** The routes that open sealed integration secrets: the inbound URLs check a shared header or signature. */
export const SEALED_SECRET_ROUTES: readonly string[] = ['inboundTicketStatus', 'inboundTicketTrigger'];

/** The routes that seal a new webhook signing secret (and never open one: only the delivery worker does). */
export const WEBHOOK_SEALING_ROUTES: readonly string[] = ['createWebhook', 'appCreateWebhook', 'appRotateWebhookSecret'];

/** The routes that seal an integration's shared header value or signing secret (and never open one: only the inbound URLs do). */
export const INTEGRATION_SEALING_ROUTES: readonly string[] = ['appConfigureIntegration'];

/**
 * The routes that MAC with the code key: those that hash or check a six-digit code (creating a
 * request, its challenge code, also in the member app and through a ticket trigger; giving one a
 * new link, a new challenge code; sending the subject an email code; checking what the subject
 * typed), and the member application's two that take a secret in their body (an integration's
 * signing secret, a helpdesk's credentials), whose Idempotency-Key fingerprint it keys.
 */
export const CODE_HASH_ROUTES: readonly string[] = [
  'createRequest',
  'appCreateRequest',
  'inboundTicketTrigger',
  'relinkRequest',
  'appRelinkRequest',
  'subjectEmailCode',
  'subjectVerify',
  'appConfigureIntegration',
  'appConnectHelpdesk',
];

/** The routes that sign custody certificates (one function: the certificate handler). */
export const SIGNING_ROUTES: readonly string[] = ['requestCertificate', 'shareCertificate', 'appRequestCertificate', 'appShareCertificate'];

/** The route that publishes the signing keys' public halves: it reads, and never registers a key (the certificate function does). */
export const KEY_PUBLISHING_ROUTES: readonly string[] = ['jwks'];
