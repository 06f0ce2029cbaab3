import { ApiError, WriteConflict } from '../../errors.ts';
import { addressForLookup } from '../../email-address.ts';
import { oneLine } from '../../messages.ts';
import { characterCount } from '../../characters.ts';
import type { Interpreted } from '../../inbound/mapping.ts';
import { assertIntegrationUnchanged, integrationActor, type Integration, type IntegrationRepository } from '../../integration.ts';
import type { Organisation, Preset } from '../../model.ts';
import type { AuditTrail, Directory, TriggerGuard } from '../../ports.ts';
import { newId } from '../../ids.ts';
import { planIncludes, planRefusal } from '../../plans.ts';
import { createRequestFor, type CreateRequestDeps } from '../create-request.ts';

export interface TriggerDeps extends CreateRequestDeps {
  directory: CreateRequestDeps['directory'] & Pick<Directory, 'getPreset'>;
  requests: CreateRequestDeps['requests'] & {
    triggeredRequestId(guard: Omit<TriggerGuard, 'previousRequestId' | 'previousVersion' | 'integrationVersion'>): Promise<string | null>;
  };
  audit: AuditTrail;
  /** The integration read again when a trigger's write is refused: changed meanwhile, the post is judged again under it (IntegrationChanged). */
  integrations?: Pick<IntegrationRepository, 'get'>;
}

/** What a trigger post did: a request created, a duplicate suppressed, or why nothing could be created. */
export type TriggerOutcome =
  | { kind: 'created'; requestId: string; preset: string | null }
  | { kind: 'duplicate'; requestId: string; preset: string | null }
  | { kind: 'failed'; reason: string; preset: string | null };

const LIVE = new Set(['pending', 'opened', 'submitted']);
/** Concurrent triggers for one ticket lose to the first and then find its request: a few rounds settle them. */
const MAX_RACES = 10;
const backoff = (race: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** race)));
/** SPEC.md: a preset slug is at most 40 characters. */
const MAX_PRESET = 40;
/** SPEC.md: ticket_external_id is at most 64 characters. */
const MAX_EXTERNAL_ID = 64;
/** The justification of a request made from policy defaults, when no preset or template gives one. */
const ticketJustification = (ticketId: string) => `Needed to work on ticket ${ticketId}.`;

const failed = (reason: string, preset: string | null): TriggerOutcome => ({ kind: 'failed', reason, preset });

/**
 * The trigger URL (SPEC.md, Inbound generic ticket webhook, point 2): creates a request linked to
 * the ticket through the same use case as POST /requests, with the preset of the post, else the
 * integration's, the client's or the organisation's default preset, else policy defaults; the
 * requester from the post when the preset takes it from the ticket, else the preset's fallback.
 * While the request a trigger created for the same ticket and preset is still open, another
 * trigger creates nothing (concurrent ones included: the guard item decides). When nothing can
 * be created, a `ticket.trigger_failed` entry with the reason goes in the audit chain.
 */
export const triggerRequest = async (
  deps: TriggerDeps,
  org: Organisation,
  integration: Integration,
  post: Interpreted & { ticketId: string },
): Promise<TriggerOutcome> => {
  const outcome = await decide(deps, org, integration, post);
  if (outcome.kind === 'failed') await recordTriggerFailure(deps, org, integration, post.ticketId, outcome);
  return outcome;
};

const decide = async (deps: TriggerDeps, org: Organisation, integration: Integration, post: Interpreted & { ticketId: string }): Promise<TriggerOutcome> => {
  const { trigger } = post;
  const client = integration.clientId ? await deps.directory.getClient(org.id, integration.clientId) : null;
  if (trigger.preset && characterCount(trigger.preset) > MAX_PRESET) return failed(`The preset is longer than ${MAX_PRESET} characters.`, null);
  const slug = trigger.preset ?? integration.defaultPreset ?? client?.defaultPreset ?? org.defaultPreset ?? null;
  if (!planIncludes(org.plan, 'trigger_url')) return failed(`${planRefusal('trigger_url')} Nothing was created.`, slug);
  // A preset, named or a default, is asked of the same rule: a failed trigger with the reason, never a 403 mid-creation.
  if (slug && !planIncludes(org.plan, 'presets')) return failed(planRefusal('presets'), slug);
  if (!trigger.subjectName) return failed('No subject name: the post has no subject.name.', slug);
  const preset = slug ? await deps.directory.getPreset(org.id, slug) : null;
  if (slug && !preset) return failed(`No preset has the slug ${slug}.`, slug);
  const requester = await requesterOf(deps, org.id, preset, trigger.requesterEmail);
  if (!requester) {
    return failed(noRequesterProblem(preset, trigger.requesterEmail), slug);
  }

  const guardKey = { orgId: org.id, integrationId: integration.id, preset: slug ?? '', ticketId: post.ticketId };
  for (let race = 1; ; race++) {
    const previous = await deps.requests.triggeredRequestId(guardKey);
    const existing = previous ? await deps.requests.get(previous) : null;
    if (existing && LIVE.has(existing.status)) return { kind: 'duplicate', requestId: existing.id, preset: slug };
    try {
      const result = await createRequestFor(
        deps,
        { org, clientScope: integration.clientId, actor: integrationActor(integration), feature: 'trigger_url' },
        bodyOf(preset, post, requester, integration),
        { triggerGuard: { ...guardKey, previousRequestId: previous, previousVersion: existing?.version ?? null, integrationVersion: integration.version } },
      );
      await tellRequester(deps, result, post.ticketId);
      return { kind: 'created', requestId: result.request.id, preset: slug };
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) return failed(reasonOf(error), slug);
      // The plan changed while the post was handled (the request was judged again): as on Free from the start.
      if (error instanceof ApiError && error.code === 'plan_required') return failed(`${error.message} Nothing was created.`, slug);
      // Changed meanwhile (disabled, rotated, set otherwise): the post is judged again under it (receive-post.ts).
      if (error instanceof WriteConflict && deps.integrations) await assertIntegrationUnchanged(deps.integrations, org.id, integration);
      // Another trigger for the same ticket and preset committed first: read its guard again.
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
      await backoff(race);
    }
  }
};

/** Why no requester was found, naming what was sent and why it was not used. */
const noRequesterProblem = (preset: Preset | null, requesterEmail: string | null) => {
  if (!preset) return 'No preset and no requester: name a preset (or set a default preset) or send requester_email.';
  if (preset.requesterFromTicket) return `No requester: preset ${preset.slug} takes it from the ticket, which names none (requester_email), and has no fallback requester.`;
  const ignored = requesterEmail ? ` requester_email (${requesterEmail}) was not used: the preset does not take the requester from the ticket.` : '';
  return `No requester: preset ${preset.slug} has no fallback requester.${ignored}`;
};

/**
 * The ticket's requester when the preset takes it from the ticket and they are an active member
 * (a helpdesk agent who is not one falls back too), else the preset's fallback requester.
 */
const requesterOf = async (deps: TriggerDeps, orgId: string, preset: Preset | null, fromTicket: string | null) => {
  if (!preset) return fromTicket;
  const fallback = preset.fallbackRequester ?? null;
  if (!preset.requesterFromTicket || !fromTicket) return fallback;
  if (!fallback) return fromTicket;
  const members = await deps.directory.listMembers(orgId);
  // Members' addresses are kept with the domain in punycode; a helpdesk may send the Unicode form.
  const address = addressForLookup(fromTicket);
  const isMember = members.some((member) => member.active && member.email.toLowerCase() === address);
  return isMember ? fromTicket : fallback;
};

/** POST /requests' body for the trigger; the preset's defaults apply inside createRequestFor. */
const bodyOf = (preset: Preset | null, post: Interpreted & { ticketId: string }, requester: string, integration: Integration) => {
  const defaults = preset?.defaults ?? {};
  return {
    subject_name: post.trigger.subjectName,
    ...(post.trigger.subjectEmail ? { subject_email: post.trigger.subjectEmail } : {}),
    ...(post.trigger.subjectPhone ? { subject_phone: post.trigger.subjectPhone } : {}),
    ...(preset ? { preset: preset.slug } : {}),
    requester,
    ...(defaults.recipients?.length ? {} : { recipients: [requester] }),
    ...(defaults.justification || defaults.template_id ? {} : { justification: ticketJustification(post.ticketId) }),
    // Only an integration connected to its helpdesk can post to the ticket: without one, a preset that replies in the ticket creates the request unsent.
    ...(defaults.delivery?.method === 'ticket_reply' && !(integration.helpdesk && characterCount(post.ticketId) <= MAX_EXTERNAL_ID) ? { delivery: { method: 'none' } } : {}),
    ticket_ref: post.ticketId,
    ...(characterCount(post.ticketId) <= MAX_EXTERNAL_ID ? { ticket_external_id: post.ticketId } : {}),
    ticket_integration_id: integration.id,
    ...(integration.clientId ? { client_id: integration.clientId } : {}),
  };
};

/** A validation failure in words: each field with its first message, in POST /requests' field names. */
const reasonOf = (error: ApiError) => {
  const fields = Object.entries(error.errors ?? {}).map(([field, messages]) => `${field}: ${messages[0]}`);
  return `The request could not be created (${fields.join('; ') || error.message}).`;
};

/**
 * What only the trigger's caller would otherwise have seen goes to the requester, the technician
 * who owns the request: the spoken challenge code (to read out to the subject, never sent with the
 * link), and the link itself when the service did not send it (a preset that delivers nothing or
 * replies in the ticket). Without this, such a request could never be completed.
 */
const tellRequester = async (deps: TriggerDeps, result: Awaited<ReturnType<typeof createRequestFor>>, ticketId: string) => {
  const to = result.request.requester.email;
  if (!to) return;
  // Unsent: no delivery, or an email, text or reply in the ticket that failed.
  const unsentLink = result.delivery === null || result.delivery.status === 'failed' ? result.link : null;
  const subjectName = `“${oneLine(result.request.subject.name)}”`;
  const ticket = oneLine(ticketId);
  const request = `Request: ${result.request.links.app}`;
  // The link and the challenge code in two emails, never one (SPEC.md): a notice forwarded to the
  // customer, or read in a shared mailbox, does not carry both.
  const notices = [
    ...(unsentLink
      ? [{
          subject: `Send the link yourself: credential request for ticket ${ticket}`,
          text: [
            `A credential request was created for ticket ${ticket}, for ${subjectName}.`,
            '',
            `The link was not sent to them. Send it to them yourself: ${unsentLink}`,
            ...(result.challenge_code ? ['', 'Its challenge code is in an email of its own. Give the code by phone or in person, never in a message with this link.'] : []),
            '',
            request,
          ],
        }]
      : []),
    ...(result.challenge_code
      ? [{
          subject: `Challenge code for ticket ${ticket}`,
          text: [
            `A credential request was created for ticket ${ticket}, for ${subjectName}.`,
            '',
            `Challenge code to read out to ${subjectName}: ${result.challenge_code}`,
            'Give it by phone or in person, never in the same message as the link.',
            '',
            request,
          ],
        }]
      : []),
  ];
  for (const notice of notices) {
    try {
      await deps.notifier.sendEmail({ id: newId(), purpose: 'requester_notice', to, subject: notice.subject, text: notice.text.join('\n') });
    } catch (error) {
      deps.onDeliveryFailure(error, result.request.id);
    }
  }
};

export const recordTriggerFailure = async (deps: TriggerDeps, org: Organisation, integration: Integration, ticketId: string | null, outcome: { reason: string; preset: string | null }) => {
  const actor = integrationActor(integration);
  await deps.audit.record({
    orgId: org.id,
    type: 'ticket.trigger_failed',
    actor,
    clientId: integration.clientId,
    requestId: null,
    data: {
      actor: { type: actor.type, label: actor.label },
      details: { integration_id: integration.id, ticket_id: ticketId, preset: outcome.preset, reason: outcome.reason },
    },
  });
};

