import { randomUUID } from 'node:crypto';
import { MAX_BODY_BYTES, MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES } from '../../lambdas/http/request-limits.ts';
import type { DocumentedOperation } from './openapi-answers.ts';
import type { Call, World } from './openapi-world.ts';

/**
 * How to make each operation of docs/openapi.json answer each status it lists. An operation is one
 * entry of OPERATION_CASES: a call that succeeds, and calls for the statuses only it answers
 * (a record that does not exist, a state that forbids the change); every status many operations
 * answer the same way (a missing key, a plan or rate refusal, an oversized body or header, an
 * unknown query parameter, a concurrent duplicate, a failing table) is made from the successful
 * call by SHARED_STATUSES. A new operation needs its entry, or the test fails.
 */
type Make = (world: World) => Call | Promise<Call>;

export interface OperationCase {
  /** A call the operation answers with its success status. */
  success: Make;
  /** More successful calls, each showing another answer the document describes (a PDF). */
  alsoSuccess?: Make[];
  /** Calls for the operation's own statuses. */
  statuses?: Partial<Record<number, Make>>;
}

/** An id that is well formed and names nothing. */
const NO_ID = '01aaaaaaaaaaaaaaaaaaaaaaaa';
const NO_SECRET = 'S'.repeat(43);

export const OPERATION_CASES: Record<string, OperationCase> = {
  ping: { success: () => ({ path: '/v1/ping' }) },
  generate: {
    success: () => ({ path: '/v1/generate', body: { type: 'password', length: 16 } }),
    // The bounds the schema states: what a generated client checks before sending.
    statuses: { 422: () => ({ path: '/v1/generate', body: { length: 7 } }) },
  },
  listRequests: { success: () => ({ path: '/v1/requests?status=pending&limit=5' }) },
  createRequest: {
    success: (world) => ({ path: '/v1/requests', body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [world.org.owner.email] } }),
    statuses: { 422: () => ({ path: '/v1/requests', body: { subject_name: 5, recipients: 'nobody' } }) },
  },
  getRequest: {
    success: async (world) => ({ path: `/v1/requests/${await world.request()}` }),
    statuses: { 404: () => ({ path: `/v1/requests/${NO_ID}` }) },
  },
  revokeRequest: requestChange('revoke', 'pending'),
  completeRequest: requestChange('complete', 'submitted'),
  relinkRequest: requestChange('relink', 'pending'),
  markTicketStatus: {
    success: () => ({ path: '/v1/tickets/INC-4711/status', body: { status: 'open' } }),
    statuses: { 422: () => ({ path: '/v1/tickets/INC-4711/status', body: { status: 'shelved' } }) },
  },
  requestCertificate: {
    success: async (world) => ({ path: `/v1/requests/${await world.request()}/certificate` }),
    alsoSuccess: [async (world) => ({ path: `/v1/requests/${await world.request()}/certificate?format=pdf` })],
    statuses: { 404: () => ({ path: `/v1/requests/${NO_ID}/certificate` }) },
  },
  shareCertificate: {
    success: (world) => ({ path: `/v1/shares/${world.shareId}/certificate` }),
    alsoSuccess: [(world) => ({ path: `/v1/shares/${world.shareId}/certificate?format=pdf` })],
    statuses: { 404: () => ({ path: `/v1/shares/${NO_ID}/certificate` }) },
  },
  listEvents: { success: () => ({ path: '/v1/events?since=0&types=request.created&limit=5' }) },
  listWebhooks: { success: () => ({ path: '/v1/webhooks' }) },
  createWebhook: {
    success: () => ({ path: '/v1/webhooks', body: { url: 'https://hooks.example.com/handoff', events: ['member.disabled'] } }),
    statuses: { 422: () => ({ path: '/v1/webhooks', body: { url: 'ftp://hooks.example.com', events: ['ping'] } }) },
  },
  deleteWebhook: {
    success: async (world) => ({ path: `/v1/webhooks/${await world.webhook()}` }),
    statuses: { 404: () => ({ path: `/v1/webhooks/${NO_ID}` }) },
  },
  openapi: { success: () => ({ path: '/v1/openapi.json' }) },
  jwks: { success: () => ({ path: '/.well-known/jwks.json' }) },
  inboundTicketStatus: inboundCase('statusPath', { ticket_id: 'INC-4711', status: 'resolved' }),
  inboundTicketTrigger: inboundCase('triggerPath', { ticket_id: 'INC-4712', subject: { name: 'Jane Doe' } }),
};

/** A change to one request: made on a fresh request it accepts, refused (409) on one in the other state. */
function requestChange(change: string, accepts: 'pending' | 'submitted'): OperationCase {
  const fresh = (world: World, state: 'pending' | 'submitted') => (state === 'pending' ? world.request() : world.submittedRequest());
  return {
    success: async (world) => ({ path: `/v1/requests/${await fresh(world, accepts)}/${change}` }),
    statuses: {
      404: () => ({ path: `/v1/requests/${NO_ID}/${change}` }),
      409: async (world) => ({ path: `/v1/requests/${await fresh(world, accepts === 'pending' ? 'submitted' : 'pending')}/${change}` }),
    },
  };
}

function inboundCase(url: 'statusPath' | 'triggerPath', body: Record<string, unknown>): OperationCase {
  return {
    success: (world) => ({ path: world.inbound.open[url], body }),
    statuses: {
      401: (world) => ({ path: world.inbound.guarded[url], body }),
      404: () => ({ path: `/inbound/${url === 'statusPath' ? 'ticket-status' : 'ticket-trigger'}/${NO_SECRET}`, body }),
      409: (world) => ({ path: world.inbound.disabled[url], body }),
      // The Idempotency-Key a sender may send: at most 200 characters.
      422: (world) => ({ path: world.inbound.open[url], body, headers: [['Idempotency-Key', 'k'.repeat(201)]] }),
      // One post a minute: the first of the minute uses it up.
      429: (world) => ({
        path: world.inbound.limited[url],
        body,
        prepare: async () => {
          await clearOfMinuteEnd(10_000);
          await world.send('POST', { path: world.inbound.limited[url], body }, false);
        },
      }),
    },
  };
}

/** Whether the operation takes an API key (its security names one). */
export const isKeyed = (operation: DocumentedOperation) => (operation.operation.security ?? []).some((requirement: object) => Object.keys(requirement).length > 0);
const readsQueryFields = (operation: DocumentedOperation) => operation.template.startsWith('/inbound/');

/**
 * Waits out the end of the current one-minute rate window when less than `marginMs` of it is left,
 * so that a call using up a limit and the call refused after it fall in one window.
 */
const clearOfMinuteEnd = async (marginMs: number) => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
};

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

type Shared = (operation: DocumentedOperation, success: Call, world: World) => Call | null;

/**
 * The statuses many operations answer alike, each made from the operation's successful call;
 * null where the status is not the operation's to answer that way.
 */
export const SHARED_STATUSES: Partial<Record<number, Shared>> = {
  400: (operation, success) => (isKeyed(operation) && operation.method === 'POST' ? { ...success, body: '{"not json', headers: [['Content-Type', 'application/json']] } : null),
  401: (operation, success) => (isKeyed(operation) ? { ...success, key: null } : null),
  403: (operation, success, world) => (isKeyed(operation) ? { ...success, key: world.freeKey } : null),
  // A duplicate that arrives while the first call with its Idempotency-Key still runs.
  409: (operation, success, world) => {
    if (!isKeyed(operation) || operation.method !== 'POST') return null;
    const idempotencyKey = randomUUID();
    const first: Call = { ...success, headers: [...(success.headers ?? []), ['Idempotency-Key', idempotencyKey]], prepare: undefined };
    const prepare = async () => {
      await success.prepare?.();
      await world.send(operation.method, first, true);
      await world.inProgress(idempotencyKey);
    };
    return { ...first, prepare };
  },
  // A body over the limit, on every method: the gateway reads no further.
  413: (_operation, success) => ({ ...success, body: Buffer.alloc(MAX_BODY_BYTES + 1, 0x20), prepare: undefined }),
  422: (operation, success) => (readsQueryFields(operation) ? null : { ...success, path: withQuery(success.path, 'unknown_parameter=1') }),
  // The limited key's one call a minute is used up by the first call that makes it, in the same
  // one-minute window (lambdas/store/rate-limiter.ts): never in its last ten seconds, which the call could fall after.
  429: (operation, success, world) =>
    isKeyed(operation)
      ? {
          ...success,
          key: world.limitedKey,
          prepare: async () => {
            await clearOfMinuteEnd(10_000);
            await world.send('GET', { path: '/v1/ping', key: world.limitedKey }, true);
          },
        }
      : null,
  431: (_operation, success) => ({ ...success, headers: [...(success.headers ?? []), ['X-Padding', 'h'.repeat(MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES)]], prepare: undefined }),
};

/** Statuses no call can make on purpose, with why; every other status a document lists must be made. */
export const UNREACHABLE_STATUSES: Record<string, string> = {
  500: 'an unexpected failure of the service itself: no input makes one, and the bad-input property suites check none does',
};

/** The status made while every call to the table fails (the world's proxy throttles them all). */
export const TABLE_FAILURE_STATUS = 503;
