import type { AuditType } from '../../audit-types.ts';
import type { Clock } from '../../clock.ts';
import { WriteConflict } from '../../errors.ts';
import { syncExpirySchedule, type ExpiryScheduling } from '../../expiry-schedule.ts';
import type { Actor, HandoffRequest, Organisation, TicketStatus } from '../../model.ts';
import type { AuditEntryInput, Directory, PurgeScheduler, RequestRepository, TicketReadNotes } from '../../ports.ts';
import { requestAuditEntry } from '../../request-audit.ts';
import { relinkCause } from '../../request-state.ts';
import { toRequestView, type PublicUrls, type RequestView } from '../../request-view.ts';
import { KeyedQueue } from '../../keyed-queue.ts';
import type { ShareDeps } from '../shares/share-ports.ts';
import { applyTicketStatusToShares } from './apply-share-ticket-status.ts';
import { checkIntegrationUnchanged, integrationCondition, linkedAgain, linkedIntegration, shareCondition, type LinkedIntegration } from './status-conditions.ts';
import { MAX_STATUS_RACES, statusRaceBackoff } from './status-races.ts';
import { countsAsClosed, decideTicketChange, TICKET_CLOSED, type TicketAction, type TicketDecision } from '../../ticket-lifecycle.ts';
import type { IntegrationRepository } from '../../integration.ts';
import { ticketCheckKey, type TicketCheck, type TicketCheckQueue } from '../../ticket-check.ts';
import type { IndexedTicketRequests, TicketLinks } from '../../ticket-links.ts';

export interface TicketStatusDeps extends ExpiryScheduling {
  requests: Pick<RequestRepository, 'get' | 'update'> & TicketReadNotes & { findByTicket(orgId: string, ref: string): Promise<HandoffRequest[]> };
  /** Where a function has them (the webhook URL), the requests of a ticket as the ticket indexes hold them: a sender's status starts from these. */
  indexedRequests?: IndexedTicketRequests;
  purgeScheduler?: PurgeScheduler;
  clock: Clock;
  urls: PublicUrls;
  /** Shares that quote the ticket take the status too; absent, none are matched. */
  shares?: ShareDeps['shares'];
  /**
   * Tickets linked through an integration connected to its helpdesk are verified: a status sent
   * to the service is then only a hint, and a closing one asks `ticketChecks` to read the ticket
   * (without a queue, the reconciliation reads it). Without `integrations` (tests of the generic
   * rules), every ticket follows the generic rules.
   */
  integrations?: Pick<IntegrationRepository, 'get'>;
  ticketChecks?: TicketCheckQueue;
  /**
   * Where a function has it, the organisation read again when its policy changed while a status
   * was applied: each change is then made on condition that the policy is still the one read, and
   * decided again under the new one otherwise (a close is never applied under a replaced policy).
   */
  directory?: Pick<Directory, 'getOrganisation'>;
  /** A check that could not be queued (the reconciliation will read the ticket anyway). */
  onCheckFailure?: (error: unknown) => void;
}

/** How a status arrived: through an API key, an integration's own webhook URL, or a read of the helpdesk. */
export interface TicketChannel {
  kind: 'api_key' | 'integration' | 'helpdesk';
  /** The API key's or the integration's name, as the audit trail shows it. */
  name: string;
  actor: Actor;
  /**
   * For an integration's URL: requests linked through this integration, and requests that only
   * quote the reference with no integration link. Another integration's tickets never match.
   */
  integrationId: string | null;
  /**
   * For an integration's URL: the integration's version its post was understood under. Each change
   * is then made on condition that it still is, and a newer one is reported (IntegrationChanged).
   */
  integrationVersion?: number;
}

export interface TicketStatusInput {
  org: Organisation;
  /** The ticket reference or external id, matched exactly. */
  ref: string;
  status: TicketStatus;
  /** The word as received, for the audit details (the generic webhook maps words to statuses). */
  statusWord?: string | null;
  verified: boolean;
  /** A status read from the helpdesk: which helpdesk, when, and its own word, for the audit details. */
  verification?: { helpdesk: string; readAt: string; vendorStatus: string };
  channel: TicketChannel;
  /** POST /tickets/{ref}/status `integration_id`: only tickets linked through this integration. */
  onlyIntegration: string | null;
  /** A client-scoped key or integration: only that client's requests. */
  clientId: string | null;
  /**
   * What the ticket index says of `ref` (core/ticket-links.ts): only the kinds of record it names
   * are looked for. Absent or null, every kind is.
   */
  links?: TicketLinks | null;
}

export interface TicketStatusOutcome {
  /** Every request quoting or linked to the ticket within the caller's scope, whatever its state. */
  ticketLinks: number;
  /** The requests that took the status (not ended), oldest first, with what it did to each. */
  changed: Array<{ requestId: string; action: TicketAction; purgeScheduledAt: string | null }>;
  trusted: boolean;
  /** Requests whose close waits for the helpdesk's answer (a closing hint on a ticket it can read). */
  verifying: number;
  /** The live shares quoting the ticket, which a trusted close destroyed. */
  shares: string[];
}


/** Whether `request`'s ticket is the one this status is about, for this channel and scope. */
const matches = (request: HandoffRequest, input: TicketStatusInput) => {
  const ticket = request.ticket;
  if (!ticket || (input.clientId && request.client.id !== input.clientId)) return false;
  const quoted = ticket.ref === input.ref;
  const linked = ticket.externalId === input.ref;
  // A helpdesk's answer is about the ticket it read: only the requests linked to that ticket by its
  // id, never one that merely quotes the same words as its reference.
  if (input.verification) return ticket.integrationId === input.onlyIntegration && linked;
  if (input.onlyIntegration) return ticket.integrationId === input.onlyIntegration && (quoted || linked);
  const own = input.channel.integrationId;
  if (own && ticket.integrationId !== own) return ticket.integrationId === null && quoted;
  return quoted || linked;
};

/**
 * A ticket's status, from POST /tickets/{ref}/status or an integration's webhook URL, applied
 * to every request it matches: each takes the status, and a trusted close completes, schedules a
 * purge or revokes as the policy says (ticket-lifecycle.ts). Each request changes in one
 * transaction with its `ticket.status_received` entry (channel, trusted or not) and, after it,
 * the lifecycle's own entry (`request.completed`, `request.revoked`, `request.purge_scheduled`,
 * `request.purge_cancelled`). A request changed meanwhile is read again and decided afresh.
 */
export const applyTicketStatus = async (deps: TicketStatusDeps, input: TicketStatusInput): Promise<TicketStatusOutcome> => {
  const policy = input.org.policy.ticket;
  const trusted = input.verified || policy.trustUnverifiedWebhooks;
  const { requests, fromIndex } = await findRequests(deps, input);
  const found = requests.filter((request) => matches(request, input));
  const linked = input.verified ? new Map<string, LinkedIntegration>() : await linkedIntegrations(deps, input.org.id, found);
  const changed: TicketStatusOutcome['changed'] = [];
  const checks = new Map<string, TicketCheck>();
  let verifying = 0;
  for (const request of found) {
    // The helpdesk's answer is the fact: a hint about a ticket it can read never destroys by itself.
    const { decision, hint } = await applyToOne(deps, input, linkedOf(request, linked), request, fromIndex);
    if (decision) changed.push({ requestId: request.id, action: decision.action, purgeScheduledAt: decision.after.purgeScheduledAt });
    if (hint && decision && countsAsClosed(input.status, policy)) {
      verifying += 1;
      const check = { orgId: input.org.id, integrationId: request.ticket!.integrationId!, externalId: request.ticket!.externalId!, attempt: 0 };
      checks.set(ticketCheckKey(check), check);
    }
  }
  await queueChecks(deps, [...checks.values()]);
  const shares = deps.shares ? await applyTicketStatusToShares({ ...deps, shares: deps.shares }, input, trusted, shareCondition(deps, input)) : [];
  return { ticketLinks: found.length, changed, trusted, verifying, shares };
};

const EVERY_KIND = { quoted: true, linked: true };

/**
 * The requests quoting or linked to the ticket: none, without a read, when the ticket index knows
 * of neither; `fromIndex` when they are the ticket GSI's copies, which may be a moment old.
 */
const findRequests = async (deps: TicketStatusDeps, input: TicketStatusInput): Promise<{ requests: HandoffRequest[]; fromIndex: boolean }> => {
  const links = input.links ?? null;
  if (links && !links.quoted && !links.linked) return { requests: [], fromIndex: false };
  // A sender's status changes a request only by a write conditioned on the version read (a stale
  // copy loses it, and the request is read again), and leaves alone only an ended request; one that
  // ended for good never comes back, and one a relink could revive is read again (decideAndWrite):
  // the index's copy does for the first read. A helpdesk's read also skips requests by their
  // ticket's current status (unchangedRead, reopenedSinceRead), so it reads afresh.
  if (deps.indexedRequests && input.verification === undefined) {
    return { requests: await deps.indexedRequests.findByTicket(input.org.id, input.ref, links ?? EVERY_KIND), fromIndex: true };
  }
  return { requests: await deps.requests.findByTicket(input.org.id, input.ref), fromIndex: false };
};

/** The integration whose helpdesk could read `request`'s ticket (linked by the helpdesk's id), as read. */
const linkedOf = (request: HandoffRequest, linked: Map<string, LinkedIntegration>) =>
  request.ticket?.integrationId != null && request.ticket.externalId != null ? linked.get(request.ticket.integrationId) : undefined;

/** The integrations of `requests`' ticket links, as read: which are connected to their helpdesk, at which version. */
const linkedIntegrations = async (deps: TicketStatusDeps, orgId: string, requests: HandoffRequest[]): Promise<Map<string, LinkedIntegration>> => {
  // Without a queue the hint still destroys nothing by itself: the reconciliation reads the ticket.
  if (!deps.integrations) return new Map();
  const ids = [...new Set(requests.map((request) => request.ticket?.integrationId).filter((id): id is string => Boolean(id)))];
  const integrations = await Promise.all(ids.map(async (id) => linkedIntegration(await deps.integrations!.get(orgId, id))));
  return new Map(integrations.filter((integration) => integration !== undefined).map((integration) => [integration.id, integration]));
};

/** Asks for the reads at once; a failure is reported, not raised: the status is already recorded, and the reconciliation reads the ticket later. */
const queueChecks = async (deps: TicketStatusDeps, checks: TicketCheck[]) => {
  if (!deps.ticketChecks) return;
  for (const check of checks) {
    try {
      await deps.ticketChecks.enqueue(check, 0);
    } catch (error) {
      deps.onCheckFailure?.(error);
    }
  }
};

/** Statuses for one request, one at a time in this process (a burst for one ticket would only race itself). */
const perRequest = new KeyedQueue();

const applyToOne = (deps: TicketStatusDeps, input: TicketStatusInput, linked: LinkedIntegration | undefined, first: HandoffRequest, fromIndex: boolean) =>
  perRequest.run(first.id, async (waited) => decideAndWrite(deps, input, linked, first, waited ? await deps.requests.get(first.id) : first, fromIndex && !waited));

/**
 * A request the status leaves alone because it ended, but which a relink can bring back (revoked,
 * or expired before anything was submitted): an index's copy of it may be older than that relink.
 */
const endedButRelinkable = (request: HandoffRequest) => {
  const cause = relinkCause(request, false);
  return cause === 'revoked' || cause === 'expired';
};

/**
 * `indexCopy`: `current` is the ticket GSI's copy, which lags deployed; every later read is the
 * table's own. `linked`: the integration whose helpdesk could read the ticket, as read. Answers the
 * decision written, if any, and whether the status was judged a hint (by the integration that stood).
 */
const decideAndWrite = async (
  deps: TicketStatusDeps,
  input: TicketStatusInput,
  linked: LinkedIntegration | undefined,
  first: HandoffRequest,
  current: HandoffRequest | null,
  indexCopy: boolean,
): Promise<{ decision: TicketDecision | null; hint: boolean }> => {
  let before: HandoffRequest | null = current;
  let readAgain = !indexCopy;
  for (let race = 1; ; race++) {
    const hint = linked?.helpdesk === true;
    if (!before) return { decision: null, hint };
    if (!readAgain && endedButRelinkable(before)) {
      readAgain = true;
      before = await deps.requests.get(first.id);
      continue;
    }
    // An older read of the helpdesk than the one the request holds says nothing new: dropped, so a
    // close read before a reopen (and applied after it) cannot destroy, nor an open one undo a close.
    if (olderThanHeldRead(input, before)) return { decision: null, hint };
    if (reopenedSinceRead(input, before)) {
      // The ticket was reopened after the helpdesk was read: that read no longer holds. Read again.
      await deps.ticketChecks?.enqueue({ orgId: before.orgId, integrationId: before.ticket!.integrationId!, externalId: before.ticket!.externalId!, attempt: 0 }, 0);
      return { decision: null, hint };
    }
    // Trusted as the policy now read says (a hint about a ticket its helpdesk can read never is).
    const trusted = (input.verified || input.org.policy.ticket.trustUnverifiedWebhooks) && !hint;
    const change = { status: input.status, verified: input.verified, trusted, ...(input.verification ? { readAt: input.verification.readAt } : {}) };
    const decision = decideTicketChange(before, change, input.org.policy.ticket, deps.clock.now());
    if (!decision) return { decision: null, hint };
    if (unchangedRead(input, before, decision)) {
      // Kept as the held read's time, so that a read made before this one and answered after it
      // (a close before a reopen) is judged older (olderThanHeldRead) and cannot destroy.
      if (input.verification!.readAt > (before.ticket!.statusReadAt ?? '')) await deps.requests.noteTicketRead(before, input.verification!.readAt);
      return { decision: null, hint };
    }
    const [entry, ...followUps] = auditEntries(input, trusted, decision, toRequestView(decision.after, deps.urls));
    try {
      await deps.requests.update(before, decision.after, entry, decision.purgeMaterial, followUps, deps.directory ? (input.org.policyVersion ?? 0) : undefined, integrationCondition(input, linked));
      await syncSchedules(deps, before, decision);
      return { decision, hint };
    } catch (error) {
      if (error instanceof WriteConflict) await checkIntegrationUnchanged(deps, input);
      if (!(error instanceof WriteConflict) || race >= MAX_STATUS_RACES) throw error;
      await statusRaceBackoff(race);
      const org = deps.directory ? await deps.directory.getOrganisation(input.org.id) : null;
      if (org && (org.policyVersion ?? 0) !== (input.org.policyVersion ?? 0)) input = { ...input, org };
      // A helpdesk connected or removed meanwhile decides afresh whether the status is only a hint.
      linked = await linkedAgain(deps, input.org.id, linked);
      readAgain = true;
      before = await deps.requests.get(first.id);
    }
  }
};

/**
 * A helpdesk read that would close, older than a reopen the request took since (a hint, which
 * needs no trust to keep a credential): applying it would destroy on stale news.
 */
const reopenedSinceRead = (input: TicketStatusInput, before: HandoffRequest) =>
  input.verification !== undefined &&
  (input.status === 'resolved' || input.status === 'closed') &&
  (before.ticket?.status === 'open' || before.ticket?.status === 'pending') &&
  before.ticket.statusVerified !== true &&
  (before.ticket.statusAt ?? '') > input.verification.readAt;

/** A helpdesk read made before the read whose status the request holds (two checks of one ticket whose answers cross). */
const olderThanHeldRead = (input: TicketStatusInput, before: HandoffRequest) =>
  input.verification !== undefined && before.ticket?.statusVerified === true && (before.ticket.statusReadAt ?? '') > input.verification.readAt;

/**
 * A read of the helpdesk that finds what the request already holds as verified: nothing to audit
 * (the reconciliation reads every linked ticket on a period, which must not fill the trail), only
 * its read time to note.
 */
const unchangedRead = (input: TicketStatusInput, before: HandoffRequest, decision: TicketDecision) =>
  input.verification !== undefined && decision.action === 'recorded' && before.ticket?.status === input.status && before.ticket?.statusVerified === true;

/** The status entry first, then the lifecycle's own, all in the request's one transaction. */
const auditEntries = (input: TicketStatusInput, trusted: boolean, decision: TicketDecision, view: RequestView): AuditEntryInput[] => {
  const verification = input.verification
    ? { verified: true, helpdesk: input.verification.helpdesk, read_at: input.verification.readAt, helpdesk_status: input.verification.vendorStatus }
    : {};
  const channel = { channel: input.channel.kind, channel_name: input.channel.name, ...verification };
  const entry = (type: AuditType, details: Record<string, unknown>) =>
    requestAuditEntry(input.org.id, input.channel.actor, view, type, details);
  const entries = [
    entry('ticket.status_received', {
      ticket_ref: input.ref,
      status: input.status,
      ...(input.statusWord ? { status_word: input.statusWord } : {}),
      ...channel,
      verified: input.verified,
      trusted,
      action: decision.action,
    }),
  ];
  switch (decision.action) {
    case 'completed':
      entries.push(entry('request.completed', { purge_reason: TICKET_CLOSED, ticket_ref: input.ref, ...channel }));
      if (input.org.policy.rotationSignal) {
        entries.push(entry('credential.rotation_recommended', { reason: 'credential_handed_over', purge_reason: TICKET_CLOSED, ticket_ref: input.ref, ...channel }));
      }
      break;
    case 'revoked':
      entries.push(entry('request.revoked', { revoked_reason: TICKET_CLOSED, ticket_ref: input.ref, ...channel }));
      break;
    case 'purge_scheduled':
      entries.push(entry('request.purge_scheduled', { purge_scheduled_at: decision.after.purgeScheduledAt, grace_period_minutes: input.org.policy.ticket.gracePeriodMinutes, ticket_ref: input.ref, ...channel }));
      break;
    case 'purge_cancelled':
      entries.push(entry('request.purge_cancelled', { ticket_ref: input.ref, status: input.status, ...channel }));
      break;
    case 'recorded':
      break;
  }
  return entries;
};

/** After the commit: the expiry and purge schedules follow the request (failures tolerated; the sweep covers them). */
const syncSchedules = async (deps: TicketStatusDeps, before: HandoffRequest, decision: TicketDecision) => {
  const after = decision.after;
  if (decision.action === 'completed' || decision.action === 'revoked') await syncExpirySchedule(deps, after);
  const purge = deps.purgeScheduler;
  if (!purge) return;
  try {
    if (decision.action === 'purge_scheduled') await purge.schedule(after.id, after.purgeScheduledAt!);
    else if (before.purgeScheduledAt && !after.purgeScheduledAt) await purge.cancel(after.id);
  } catch (error) {
    try {
      deps.onScheduleFailure?.(error, after.id);
    } catch {
      // a failing reporter must not fail the change either
    }
  }
};
