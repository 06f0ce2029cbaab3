import type { Clock } from '../../clock.ts';
import { ApiError, notFound, rateLimited, WriteConflict } from '../../errors.ts';
import { RANDOM_TOKEN_PATTERN, sha256Hex } from '../../hashing.ts';
import { checkInboundAuth, inboundChallenge, signsTheBody } from '../../inbound/auth-check.ts';
import { readInboundPayload } from '../../inbound/inbound-payload.ts';
import type { InboundAuthMode } from '../../inbound/recipes.ts';
import { interpret, problemOf, type Interpreted } from '../../inbound/mapping.ts';
import { IntegrationChanged, integrationSecretContext, type InboundPurpose, type InboundSecretTarget, type Integration, type IntegrationRepository } from '../../integration.ts';
import type { Organisation } from '../../model.ts';
import type { Directory } from '../../ports.ts';
import type { SecretSealer } from '../../sealing.ts';
import type { TicketIndex, TicketLinks } from '../../ticket-links.ts';
import type { TicketStatusDeps } from '../tickets/apply-ticket-status.ts';
import type { TriggerDeps } from './trigger-request.ts';
import type { InboundUrlMemory } from './url-memory.ts';

export interface InboundDeps extends Omit<TicketStatusDeps, 'requests'>, Omit<TriggerDeps, 'requests'> {
  requests: TicketStatusDeps['requests'] & TriggerDeps['requests'];
  integrations: IntegrationRepository;
  directory: TriggerDeps['directory'] & Pick<Directory, 'getOrganisation'>;
  sealer: SecretSealer;
  inboundRate: { countIntegration(integrationId: string): Promise<{ count: number; resetAt: number; nowSeconds: number }> };
  clock: Clock;
  /** Which kinds of record quote a ticket (the webhook URL); absent, every status looks through the ticket indexes. */
  ticketIndex?: TicketIndex;
  /** What the function remembers of its URLs (url-memory.ts): where an integration's posts had their ticket id. */
  urlMemory?: Pick<InboundUrlMemory, 'mappingOf'>;
}

/** One post to an inbound URL, as received: the URL's secret, the headers (lower-case names), the exact body. */
export interface InboundPost {
  secret: string;
  headers: Record<string, string | undefined>;
  /** The exact bytes received: signatures are checked over them, the fields read from their UTF-8 text. */
  rawBody: Buffer;
  contentType: string | undefined;
  query: Record<string, string | undefined>;
}

/**
 * The 202 answer: what the service understood of the post, and why it could not be used when it
 * could not. It never says whether the ticket exists or what the post changed.
 */
export type InboundAck =
  | { accepted: true; url: 'webhook'; ticket_id: string | null; status: string; status_received: string | null; problem: string | null }
  | { accepted: true; url: 'trigger'; ticket_id: string | null; preset: string | null; problem: string | null };

/**
 * What one kind of URL does with a post once it is authenticated and read (status-action.ts,
 * trigger-action.ts): each function bundles only its own, so the webhook URL's function carries
 * no request creation (nor phone number parsing) and the trigger's no status handling.
 */
export interface InboundAction {
  purpose: InboundPurpose;
  /**
   * What the ticket index says of the ticket the post probably names, read beside the admission's
   * own reads: so before the post is authenticated, it only reads, nothing of it is used unless
   * the post is admitted, and it never fails the post (null: nothing read). Absent, nothing is
   * read ahead.
   */
  readAhead?(deps: InboundDeps, target: InboundSecretTarget, post: InboundPost): Promise<TicketLinksRead | null>;
  /** A post that can be used for nothing: what the URL records of it beside the activity log. */
  refuse(deps: InboundDeps, org: Organisation, integration: Integration, understood: Interpreted, reason: string): Promise<void>;
  /**
   * A post naming its ticket; `unusable` is the problem already logged, if any (a status word
   * nobody mapped). Answers the preset and the problem the acknowledgement reports.
   */
  use(
    deps: InboundDeps,
    admitted: AdmittedPost,
    understood: Interpreted & { ticketId: string },
    unusable: string | null,
  ): Promise<{ preset: string | null; problem: string | null }>;
}

const unknownUrl = () => notFound('No such URL.');

/** What the ticket index said of a ticket, read ahead for the one the post probably names. */
export interface TicketLinksRead {
  ticketId: string;
  links: TicketLinks | null;
}

/** A post its URL, rate limit, hardening and integration's state let in: the integration and its organisation. */
export interface AdmittedPost {
  integration: Integration;
  org: Organisation;
  /** The action's read ahead (readAhead), when it made one and it answered. */
  ticketLinks: TicketLinksRead | null;
}

/**
 * Who may post to an integration's webhook or trigger URL (SPEC.md, Inbound generic ticket
 * webhook): 404 for a wrong or rotated URL, 429 over the integration's rate limit, 401 for a wrong
 * shared header or signature, 409 while the integration is disabled.
 */
export const admitInboundPost = async (deps: InboundDeps, action: Pick<InboundAction, 'purpose' | 'readAhead'>, post: InboundPost): Promise<AdmittedPost> => {
  const { purpose } = action;
  const target = await targetOf(deps, purpose, post.secret);
  // The integration, its rate window, its organisation and what the action reads ahead, in one round.
  const ticketLinks = action.readAhead ? action.readAhead(deps, target, post) : null;
  const [integration, rate, org] = await Promise.all([
    deps.integrations.get(target.orgId, target.integrationId),
    deps.inboundRate.countIntegration(target.integrationId),
    deps.directory.getOrganisation(target.orgId),
  ]);
  // A rotated URL is 404 at once: the look-up item goes in the rotation's transaction, and the
  // integration must still name this secret (a late copy of the old look-up, or a function's
  // memory of it, changes nothing).
  if (!integration || !org || integration.secretHashes[purpose] !== target.secretHash) throw unknownUrl();
  if (rate.count > integration.rateLimitPerMinute) throw rateLimited(Math.max(1, rate.resetAt - rate.nowSeconds));
  await checkStanding(deps, integration, purpose, post);
  return { integration, org, ticketLinks: await ticketLinks };
};

/** 401 for a wrong shared header or signature, then 409 while the integration is disabled. */
const checkStanding = async (deps: InboundDeps, integration: Integration, purpose: InboundPurpose, post: InboundPost) => {
  await checkAuth(deps, integration, purpose, post);
  if (!integration.enabled) throw new ApiError(409, 'conflict', 'This integration is disabled.');
};

/** How many times one post is judged again because its integration changed while it was used. */
const MAX_INTEGRATION_CHANGES = 5;

/**
 * A post whose integration changed before its change was written (IntegrationChanged) is admitted
 * again under the integration that now stands, as if it had arrived after the change: 404 once its
 * URL was rotated away, 401 for the new hardening, 409 once disabled, else read with the new
 * mapping and status words. Changes written before the integration changed stay as they were.
 */
const readmitted = async (deps: InboundDeps, purpose: InboundPurpose, admitted: AdmittedPost, post: InboundPost, integration: Integration | null): Promise<AdmittedPost> => {
  if (!integration || integration.secretHashes[purpose] !== sha256Hex(post.secret)) throw unknownUrl();
  await checkStanding(deps, integration, purpose, post);
  return { ...admitted, integration };
};

/**
 * The post's fields as sent: its body (JSON or form), and its query string unless the integration
 * signs its posts (a signature covers the body alone; signsTheBody). Before the integration is
 * read (a read ahead), `mode` is unknown and the query is read: what that finds is only a hint.
 */
export const payloadOf = (post: InboundPost, mode: InboundAuthMode | null) =>
  readInboundPayload({ body: post.rawBody.toString('utf8'), contentType: post.contentType, query: mode !== null && signsTheBody(mode) ? {} : post.query });

/**
 * An admitted post: every one is 202. A post that cannot be used goes to the integration's
 * activity log with its reason.
 */
export const useInboundPost = async (deps: InboundDeps, action: InboundAction, admitted: AdmittedPost, post: InboundPost): Promise<InboundAck> => {
  for (let changes = 0; ; changes++) {
    try {
      return await useOnce(deps, action, admitted, post);
    } catch (error) {
      if (!(error instanceof IntegrationChanged)) throw error;
      // Contention, as a write that keeps losing its race is (503): the sender retries.
      if (changes >= MAX_INTEGRATION_CHANGES) throw new WriteConflict('the integration kept changing while the post was used', { cause: error });
      admitted = await readmitted(deps, action.purpose, admitted, post, error.integration);
    }
  }
};

const useOnce = async (deps: InboundDeps, action: InboundAction, admitted: AdmittedPost, post: InboundPost): Promise<InboundAck> => {
  const { purpose } = action;
  const { integration, org } = admitted;
  const payload = payloadOf(post, integration.auth.mode);
  const understood = interpret(payload.fields, integration.mapping, integration.statusMap);
  const unusable = payload.problem ?? problemOf(understood, purpose);
  if (unusable) await logUnusable(deps, integration, purpose, understood, unusable);
  // A status word nobody mapped is still the ticket's latest status: recorded as `unknown` (which
  // never destroys anything), beside the activity entry that asks for a mapping.
  const recordsStatus = purpose === 'status' && !payload.problem && understood.ticketId !== null && understood.statusWord !== null;
  if (unusable && !recordsStatus) {
    await action.refuse(deps, org, integration, understood, unusable);
    return ack(purpose, understood, understood.trigger.preset, unusable);
  }
  const { preset, problem } = await action.use(deps, admitted, { ...understood, ticketId: understood.ticketId! }, unusable);
  // A problem found while using the post (a trigger that could not create) goes to the log too.
  if (problem && problem !== unusable) await logUnusable(deps, integration, purpose, understood, problem);
  return ack(purpose, understood, preset, problem);
};

const targetOf = async (deps: InboundDeps, purpose: InboundPurpose, secret: string) => {
  if (!RANDOM_TOKEN_PATTERN.test(secret)) throw unknownUrl();
  const secretHash = sha256Hex(secret);
  const target = await deps.integrations.findBySecretHash(secretHash);
  // A trigger secret on the webhook URL (or the other way round) is as unknown as a wrong one.
  if (!target || target.purpose !== purpose) throw unknownUrl();
  return { ...target, secretHash };
};

const AUTH_REASONS = { missing: 'The signature or shared header is missing.', mismatch: 'The signature or shared header does not match.', stale: 'The signature timestamp is more than five minutes away.' };

/** 401 unless the post carries the configured shared header or signature; a refusal is in the activity log. */
const checkAuth = async (deps: InboundDeps, integration: Integration, purpose: InboundPurpose, post: InboundPost) => {
  const { mode, headerName, secret } = integration.auth;
  if (mode === 'none') return;
  const opened = secret ? await deps.sealer.open(secret, integrationSecretContext(integration)) : null;
  const outcome = checkInboundAuth({ mode, headers: post.headers, rawBody: post.rawBody, secret: opened, headerName, now: deps.clock.now() });
  if (outcome === 'ok') return;
  await deps.integrations.recordActivity(integration.id, { at: deps.clock.now().toISOString(), purpose, reason: AUTH_REASONS[outcome], ticketId: null, statusWord: null });
  throw new ApiError(401, 'unauthenticated', AUTH_REASONS[outcome], undefined, { 'WWW-Authenticate': inboundChallenge(mode) });
};

const logUnusable = (deps: InboundDeps, integration: Integration, purpose: InboundPurpose, understood: Interpreted, reason: string) =>
  deps.integrations.recordActivity(integration.id, {
    at: deps.clock.now().toISOString(),
    purpose,
    reason,
    ticketId: understood.ticketId,
    statusWord: understood.statusWord,
  });

const ack = (purpose: InboundPurpose, understood: Interpreted, preset: string | null, problem: string | null): InboundAck =>
  purpose === 'status'
    ? { accepted: true, url: 'webhook', ticket_id: understood.ticketId, status: understood.status, status_received: understood.statusWord, problem }
    : { accepted: true, url: 'trigger', ticket_id: understood.ticketId, preset, problem };
