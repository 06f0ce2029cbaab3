import { apiActor, type Caller } from '../caller.ts';
import { linkEmail, linkSms, type LinkMessageFacts } from '../messages.ts';
import { addMinutes, type Clock } from '../clock.ts';
import type { CodeKey } from '../code-key.ts';
import { characterCount } from '../characters.ts';
import { codeHash, newSixDigitCode } from '../codes.ts';
import { recipientCommitment } from '../commitment.ts';
import { forbidden, validationFailed, WriteConflict, type FieldErrors } from '../errors.ts';
import { randomToken, sha256Hex } from '../hashing.ts';
import { syncExpirySchedule, type ExpiryScheduling } from '../expiry-schedule.ts';
import { newId } from '../ids.ts';
import { INTEGRATION_OF_ANOTHER_CLIENT, integrationInScope, UNKNOWN_INTEGRATION } from '../integration.ts';
import type { Actor, DeliveryMethod, HandoffRequest, Organisation, PresetDefaults, TicketLink } from '../model.ts';
import { toE164 } from '../phone.ts';
import { requirePlan, type PlanFeature } from '../plans.ts';
import { meetsMinimum, needsChallengeCode, needsSubjectEmail } from '../policy.ts';
import type { Directory, Notifier, RequestRepository, TriggerGuard } from '../ports.ts';
import { toRequestView, type PublicUrls } from '../request-view.ts';
import { createRequestBody, type CreateRequestBody } from '../schemas.ts';
import { parseOrThrow } from '../validation.ts';
import { resolveRecipients } from './resolve-recipients.ts';
import type { Integration } from '../integration.ts';
import type { AuditEntryInput } from '../ports.ts';
import { postLinkInTicket, type TicketReplier } from './ticket-reply.ts';
import { sealingRecord } from '../request-audit.ts';

export interface CreateRequestDeps extends ExpiryScheduling {
  directory: Directory;
  requests: RequestRepository;
  notifier: Notifier;
  clock: Clock;
  urls: PublicUrls;
  /** The challenge code is stored as a keyed hash under it. */
  codeKey: CodeKey;
  /** Called when the service could not send the link; the request stands and the caller has the link. */
  onDeliveryFailure: (error: unknown, requestId: string) => void;
  /** `ticket_reply`: who posts in the linked ticket, and where the post's outcome is audited. Absent, ticket_reply is refused. */
  ticketReplies?: TicketReplier;
  audit?: { record(entry: AuditEntryInput): Promise<unknown> };
}

export const COMMITMENT_NOTE =
  'The recipient commitment was computed by the service because this request was created through the API. ' +
  'It lets the subject\'s browser detect later changes to the recipient set, but does not protect against a ' +
  'compromised server at creation time.';
const BROWSER_COMMITMENT_NOTE =
  'The recipient commitment was computed by the technician\'s browser from the public keys it fetched, and the ' +
  'service made the request only because it matched the recipients it resolved. The subject\'s browser checks it again.';

/** A 6-digit spoken code; only its keyed hash (core/codes.ts) is stored. */
export const challengeCodeHash = (key: CodeKey, requestId: string, code: string) => codeHash(key, requestId, 'challenge', code);

/** Who creates a request: an API key's caller, or a ticketing integration's trigger URL. */
export interface RequestCreator {
  org: Organisation;
  /** A client-scoped key or integration creates only for its client. */
  clientScope: string | null;
  actor: Actor;
  /** What the way in needs of the plan (the API, the trigger URL): judged again with the organisation on every attempt. */
  feature?: PlanFeature;
}

export interface CreateOptions {
  /** The trigger's duplicate guard, stored in the request's own transaction (RequestRepository.create). */
  triggerGuard?: TriggerGuard;
  /** Given the result just before the request is stored: the caller's answer can go in the same transaction. */
  prepared?: (result: CreationResult) => void;
  /**
   * The recipient commitment the creator's browser computed from the public keys it fetched. The
   * request is made only when it matches the recipient set resolved here (422 on `commit`
   * otherwise), and the result says the browser computed it.
   */
  browserCommit?: string;
}

export type CreationResult = Awaited<ReturnType<typeof createOnce>>;

/** POST /requests: validates, applies the preset, resolves recipients, commits, stores, delivers. */
export const createRequest = (deps: CreateRequestDeps, caller: Caller, rawBody: unknown, options: Pick<CreateOptions, 'prepared'> = {}) =>
  createRequestFor(deps, { org: caller.org, clientScope: caller.apiKey.clientId, actor: apiActor(caller), feature: 'api' }, rawBody, options);

/**
 * The one way a request is created, whoever asks; the body is POST /requests' body. A policy
 * change, preset save or plan change, or a recipient disabled or given a new key, that commits
 * while the request is judged refuses its write (RequestRepository.create): the organisation and
 * the members are read again and the request judged again under what now stands. A trigger's
 * lost guard, with the policy unchanged, goes to the caller (which reads its guard again).
 */
export const createRequestFor = async (deps: CreateRequestDeps, creator: RequestCreator, rawBody: unknown, options: CreateOptions = {}): Promise<CreationResult> => {
  for (let race = 1; ; race++) {
    try {
      return await createOnce(deps, creator, rawBody, options);
    } catch (error) {
      if (!(error instanceof WriteConflict) || race >= MAX_POLICY_RACES) throw error;
      const org = await deps.directory.getOrganisation(creator.org.id);
      if (!org || (options.triggerGuard && (org.policyVersion ?? 0) === (creator.org.policyVersion ?? 0))) throw error;
      creator = { ...creator, org };
    }
  }
};

/** Lost conditions (policy, plan, recipients) a creation is judged again after before it gives up (503, contention). */
const MAX_POLICY_RACES = 5;

const createOnce = async (deps: CreateRequestDeps, creator: RequestCreator, rawBody: unknown, options: CreateOptions) => {
  const body = parseOrThrow(createRequestBody, rawBody ?? {});
  const orgId = creator.org.id;
  const policy = creator.org.policy;
  const errors: FieldErrors = {};
  const addError = (field: string, message: string) => (errors[field] ??= []).push(message);

  // The way in, and whoever creates (API, app, trigger) a preset, need a plan that includes them:
  // a plan change that committed meanwhile is judged here too (it moves the policy version).
  if (creator.feature) requirePlan(creator.org, creator.feature);
  if (body.preset) requirePlan(creator.org, 'presets');
  const preset = body.preset ? await deps.directory.getPreset(orgId, body.preset) : null;
  if (body.preset && !preset) addError('preset', `No preset has the slug ${body.preset}.`);
  const merged = mergePreset(preset?.defaults ?? {}, body);

  const scopedClient = creator.clientScope;
  if (scopedClient && body.client_id && body.client_id !== scopedClient) {
    throw forbidden('This key is scoped to another client.');
  }
  const clientId = scopedClient ?? body.client_id ?? creator.org.defaultClientId;
  const emails = merged.recipients ?? [];
  // The recipients are resolved beside the other reads: none of them depends on another.
  const [client, template, integration, resolved] = await Promise.all([
    deps.directory.getClient(orgId, clientId),
    merged.template_id ? deps.directory.getTemplate(orgId, merged.template_id) : null,
    body.ticket_integration_id ? deps.directory.getIntegration(orgId, body.ticket_integration_id) : null,
    resolveRecipients(deps.directory, { orgId, emails, teamIds: body.teams ?? [], requesterEmail: body.requester ?? null }),
  ]);
  if (!client) addError('client_id', 'No such client.');
  if (merged.template_id && !template) addError('template_id', 'No such template.');
  if (body.ticket_integration_id && !integrationInScope(integration, creator.clientScope)) addError('ticket_integration_id', UNKNOWN_INTEGRATION);
  // An integration limited to a client posts statuses for that client's requests only: another
  // client's request linked to it would never hear its ticket close, and never be destroyed by it.
  else if (integration?.clientId && integration.clientId !== clientId) addError('ticket_integration_id', INTEGRATION_OF_ANOTHER_CLIENT);

  const justification = merged.justification ?? template?.justification ?? undefined;
  const justificationLength = justification ? characterCount(justification) : 0;
  if (!justification) addError('justification', 'Required.');
  else if (justificationLength < 10 || justificationLength > 1000) addError('justification', 'Must be 10 to 1000 characters.');

  if (emails.length === 0 && !(body.teams?.length) ) addError('recipients', 'Required: 1 to 64 recipient emails.');

  const ttlMinutes = merged.ttl_minutes ?? policy.defaultTtlMinutes;
  if (!policy.ttlOptionsMinutes.includes(ttlMinutes)) {
    addError('ttl_minutes', `Must be one of the organisation's options: ${policy.ttlOptionsMinutes.join(', ')}.`);
  }
  const verificationMode = merged.verification_mode ?? policy.defaultVerification;
  if (!meetsMinimum(verificationMode, policy.minimumVerification)) {
    addError('verification_mode', `Must be at least the organisation's minimum, ${policy.minimumVerification}.`);
  }
  const subjectEmail = body.subject_email ?? null;
  if (needsSubjectEmail(verificationMode) && !subjectEmail) {
    addError('subject_email', `Required for verification mode ${verificationMode}, which emails a one-time code.`);
  }
  const subjectPhone = body.subject_phone ? toE164(body.subject_phone) : null;
  if (body.subject_phone && !subjectPhone) addError('subject_phone', 'Not a valid phone number.');

  const method: DeliveryMethod = merged.delivery?.method ?? 'none';
  if (method === 'email' && !subjectEmail) addError('subject_email', 'Required for delivery by email.');
  if (method === 'sms' && !body.subject_phone) addError('subject_phone', 'Required for delivery by SMS.');
  if (method === 'ticket_reply') {
    const problem = ticketReplyProblem(deps, body, integration);
    if (problem) addError('delivery.method', problem);
  }

  for (const [field, messages] of Object.entries(resolved.errors)) for (const m of messages) addError(field, m);
  const commit = recipientCommitment(resolved.recipients);
  if (options.browserCommit !== undefined && Object.keys(errors).length === 0 && options.browserCommit !== commit) {
    addError('commit', 'Does not match the recipients and keys the service resolved: fetch the recipients\' keys again and check their fingerprints.');
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const computedBy = options.browserCommit !== undefined ? ('browser' as const) : ('server' as const);

  const now = deps.clock.now();
  const at = now.toISOString();
  const id = newId(now.getTime());
  const challengeCode = needsChallengeCode(verificationMode) ? newSixDigitCode() : null;
  const storedChallenge = challengeCode ? await challengeCodeHash(deps.codeKey, id, challengeCode) : null;
  const linkToken = randomToken(32);
  const linkTokenHash = sha256Hex(linkToken);
  const request: HandoffRequest = {
    id,
    orgId,
    status: 'pending',
    client: { id: client!.id, name: client!.name },
    subject: { name: body.subject_name, email: subjectEmail, phone: subjectPhone },
    ticket: ticketOf(body),
    justification: justification!,
    template: template ? { id: template.id, name: template.name } : null,
    requester: { membershipId: resolved.requester.id, name: resolved.requester.name, email: resolved.requester.email },
    recipients: resolved.recipients,
    commit,
    ttlMinutes,
    verificationMode,
    allowAttachments: merged.allow_attachments ?? false,
    attachmentsCount: 0,
    needsRelink: false,
    unrecoverable: false,
    revealCount: 0,
    purgeReason: null,
    revokedReason: null,
    challengeCodeHash: storedChallenge,
    createdAt: at,
    linkExpiresAt: addMinutes(now, policy.linkLifetimeMinutes).toISOString(),
    openedAt: null,
    submittedAt: null,
    recordExpiresAt: null,
    lastRevealedAt: null,
    purgeScheduledAt: null,
    completedAt: null,
    revokedAt: null,
    updatedAt: at,
    version: 1,
    linkTokenHash,
  };
  const view = toRequestView(request, deps.urls);
  const actor = creator.actor;
  const linkWithoutFragment = `${deps.urls.appUrl}/r/${linkToken}`;
  const link = `${linkWithoutFragment}#${commit}`;
  const delivery: { id: string; method: DeliveryMethod; status?: 'sent' | 'failed' | 'unconfirmed'; reason?: string } | null = method === 'none' ? null : { id: newId(), method };
  const result = {
    request: view,
    link,
    link_without_fragment: linkWithoutFragment,
    commit,
    challenge_code: challengeCode,
    delivery,
    excluded_recipients: resolved.excluded,
    commitment: { computed_by: computedBy, note: computedBy === 'browser' ? BROWSER_COMMITMENT_NOTE : COMMITMENT_NOTE },
  };
  options.prepared?.(delivery ? { ...result, delivery: { ...delivery, ...UNCONFIRMED_DELIVERY } } : result);
  await deps.requests.create(request, linkTokenHash, {
    orgId,
    type: 'request.created',
    actor,
    clientId: request.client.id,
    requestId: id,
    data: {
      request: view,
      actor: { type: actor.type, label: actor.label },
      justification: request.justification,
      details: {},
      custody: sealingRecord(request, computedBy),
    },
  }, options.triggerGuard, creator.org.policyVersion ?? 0);
  // Arms the expiry at link_expires_at; a failure is reported, never fails the request (the sweep covers it).
  await syncExpirySchedule(deps, request);

  if (delivery?.method === 'ticket_reply') {
    // The post's outcome is the answer's: the caller holds the link and can send it another way.
    Object.assign(delivery, await postLinkInTicket({ ticketReplies: deps.ticketReplies!, audit: deps.audit! }, { request, view, integration: integration as Integration, link, actor }));
  } else if (delivery) {
    const facts: LinkMessageFacts = {
      organisation: creator.org.name,
      client: request.client.id === creator.org.defaultClientId ? null : request.client.name,
      asker: request.requester.name,
      justification: request.justification,
      ticketRef: request.ticket?.ref ?? null,
      link,
      linkExpiresAt: request.linkExpiresAt,
      verificationMode: request.verificationMode,
    };
    Object.assign(delivery, await deliverLink(deps, request, facts, delivery));
  }
  return result;
};

/**
 * The delivery as the answer kept with the request says it: the call replaces that answer with
 * its own once the link is sent or has failed, so a replay still saying this comes from a call
 * still sending, or one that stopped between storing the request and sending its link, which may
 * then never have gone out (the link is not kept, so a retry cannot send it).
 */
const UNCONFIRMED_DELIVERY = {
  status: 'unconfirmed',
  reason: 'Not confirmed yet: the first call had not said whether the link went out (it is still sending, or it stopped). Retry in a minute to see; if it still says this and the subject did not get the link, issue a new link.',
} as const;

/** Why the request cannot reply in its ticket, or null: a linked ticket through an integration connected to its helpdesk. */
const ticketReplyProblem = (deps: CreateRequestDeps, body: CreateRequestBody, integration: Pick<Integration, 'helpdesk'> | null): string | null => {
  if (!body.ticket_integration_id || !body.ticket_external_id) return 'ticket_reply needs the ticket linked: ticket_integration_id and ticket_external_id.';
  if (!integration?.helpdesk || !deps.ticketReplies || !deps.audit) return 'ticket_reply needs a reply-capable ticketing integration: connect this integration to its helpdesk (set-integration --adapter).';
  return null;
};

/** Preset defaults first; any field the body sets wins. */
const mergePreset = (defaults: PresetDefaults, body: CreateRequestBody) => ({
  justification: body.justification ?? defaults.justification,
  ttl_minutes: body.ttl_minutes ?? defaults.ttl_minutes,
  verification_mode: body.verification_mode ?? defaults.verification_mode,
  template_id: body.template_id ?? defaults.template_id,
  recipients: body.recipients ?? defaults.recipients,
  delivery: body.delivery ?? defaults.delivery,
  allow_attachments: body.allow_attachments ?? defaults.allow_attachments,
});

const ticketOf = (body: CreateRequestBody): TicketLink | null => {
  const ticket = {
    ref: body.ticket_ref ?? null,
    url: body.ticket_url ?? null,
    externalId: body.ticket_external_id ?? null,
    integrationId: body.ticket_integration_id ?? null,
    status: null,
  };
  return ticket.ref || ticket.url || ticket.externalId || ticket.integrationId ? ticket : null;
};

/**
 * Sends the link (never the challenge code: that goes out of band), and answers whether the mail
 * or text service took it, as a reply in the ticket is answered: a caller told `failed` still
 * holds the link and can send it another way.
 */
const deliverLink = async (
  deps: CreateRequestDeps,
  request: HandoffRequest,
  facts: LinkMessageFacts,
  delivery: { id: string; method: DeliveryMethod },
): Promise<{ status: 'sent' } | { status: 'failed'; reason: string }> => {
  try {
    if (delivery.method === 'email' && request.subject.email) {
      await deps.notifier.sendEmail({ id: delivery.id, purpose: 'request_link', to: request.subject.email, ...linkEmail(facts) });
    } else if (delivery.method === 'sms' && request.subject.phone) {
      await deps.notifier.sendSms({ id: delivery.id, purpose: 'request_link', to: request.subject.phone, text: linkSms(facts) });
    }
    return { status: 'sent' };
  } catch (error) {
    deps.onDeliveryFailure(error, request.id);
    return { status: 'failed', reason: `The ${delivery.method === 'sms' ? 'text message' : 'email'} could not be sent; send the link another way.` };
  }
};
