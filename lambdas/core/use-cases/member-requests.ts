import type { Clock } from '../clock.ts';
import { ApiError, forbidden, illegalTransition, notFound } from '../errors.ts';
import type { ExpiryScheduling } from '../expiry-schedule.ts';
import { isManager, memberActor, memberRef, type MemberCaller } from '../member-access.ts';
import type { HandoffRequest } from '../model.ts';
import { aRequestWhoseStatusIs } from '../model.ts';
import type { HandoffRepository, SealedMaterial } from '../ports.ts';
import { toRequestView, type PublicUrls } from '../request-view.ts';
import { reveal, sweepDueAt } from '../subject-flow.ts';
import { applyChange } from './apply-change.ts';
import { completion, endRequest, revocation, type Prepared } from './end-request.ts';
import { relinkRequest, type RelinkDeps, type RelinkResult } from './relink-request.ts';

export interface MemberRequestDeps extends ExpiryScheduling {
  requests: HandoffRepository;
  clock: Clock;
  urls: PublicUrls;
}

/** How many of the organisation's newest requests GET /app/api/requests looks through. */
export const MEMBER_LIST_WINDOW = 200;

/** What a member is to a request. Client scoping is for API keys and does not apply to members. */
export const relationTo = (request: HandoffRequest, caller: MemberCaller) => ({
  recipient: request.recipients.some((recipient) => recipient.membershipId === caller.member.id),
  requester: request.requester.membershipId === caller.member.id,
  manager: isManager(caller.member),
});

/**
 * The request if this member may see it: its requester, one of its recipients, or an owner or
 * admin of its organisation. Anyone else, like a caller from another organisation, gets 404.
 */
export const findMemberRequest = async (requests: HandoffRepository, caller: MemberCaller, requestId: string) => {
  const request = await requests.get(requestId);
  if (!request || request.orgId !== caller.org.id) throw notFound('No request with this id.');
  const relation = relationTo(request, caller);
  if (!relation.recipient && !relation.requester && !relation.manager) throw notFound('No request with this id.');
  return { request, relation };
};

/**
 * GET /app/api/requests: the organisation's requests this member requested or receives, newest
 * first. The byOrg index has no member key, so this reads the organisation's newest
 * MEMBER_LIST_WINDOW requests and filters them in memory; older ones are not listed.
 */
export const listMemberRequests = async (deps: MemberRequestDeps, caller: MemberCaller) => {
  const { items } = await deps.requests.list({ orgId: caller.org.id, limit: MEMBER_LIST_WINDOW });
  const mine = items.filter((request) => {
    const relation = relationTo(request, caller);
    return relation.recipient || relation.requester;
  });
  // `reported` beside the request's own fields: the member app marks the row (a report is news to
  // the requester, who may not open the request again).
  return { data: mine.map((request) => ({ ...toRequestView(request, deps.urls), reported: (request.reportsMade ?? 0) > 0 })) };
};

/** GET /app/api/requests/{id}: the request and its audit trail. */
const yourKeyOf = (request: HandoffRequest, memberId: string) => {
  const recipient = request.recipients.find((candidate) => candidate.membershipId === memberId);
  return recipient ? { fingerprint: recipient.fingerprint, made_by: recipient.keyMadeBy ?? 'member' } : null;
};

export const readMemberRequest = async (deps: MemberRequestDeps, caller: MemberCaller, requestId: string) => {
  const { request } = await findMemberRequest(deps.requests, caller, requestId);
  const trail = await deps.requests.trail(request.id);
  return {
    request: toRequestView(request, deps.urls),
    // The caller's key this request seals (or sealed) the credential to, so their browser can tell
    // before revealing whether the key it holds can open it; null when not a recipient.
    your_key: yourKeyOf(request, caller.member.id),
    audit: trail.map((entry) => ({
      seq: entry.seq,
      type: entry.type,
      occurred_at: entry.occurredAt,
      actor: { type: entry.actor.type, label: entry.actor.label },
      details: entry.details,
    })),
  };
};

/** A reveal refused once the credential's destruction is due. */
export const DUE_FOR_DESTRUCTION = 'This credential is due to be destroyed (its time is up, or its ticket closed): it can no longer be revealed.';

/**
 * POST /app/api/requests/{id}/reveal: hands the sealed envelope to one of its recipients, whose
 * browser opens it. The reveal is counted and audited before the material leaves; the material
 * itself is never stored anywhere else or logged.
 */
export const revealRequest = async (deps: MemberRequestDeps, caller: MemberCaller, requestId: string): Promise<SealedMaterial> => {
  let material: SealedMaterial | null = null;
  const actor = memberActor(caller.member);
  return applyChange(
    deps.requests,
    async () => {
      const { request, relation } = await findMemberRequest(deps.requests, caller, requestId);
      if (!relation.recipient) throw forbidden('Only a recipient of this request can reveal its credential.');
      if (request.status !== 'submitted') throw illegalTransition(`${aRequestWhoseStatusIs(request.status)} has nothing to reveal.`);
      // Past its record_expires_at, or its purge_scheduled_at after a ticket close, the credential
      // is due to be destroyed: the worker that does it may run moments later, but what the
      // request and the subject were told ("destroyed by ...") holds from that instant.
      const destroyBy = sweepDueAt(request);
      if (destroyBy && new Date(destroyBy) <= deps.clock.now()) throw illegalTransition(DUE_FOR_DESTRUCTION);
      // Read with the request version it belongs to: if the request changes before the reveal is
      // recorded (completed, expired), the write fails and the decision is taken again.
      material = await deps.requests.material(request.id);
      return request;
    },
    (before) => {
      if (!material) throw new ApiError(409, 'illegal_transition', 'Nothing is stored for this request any more.');
      const after = reveal(before, deps.clock.now().toISOString());
      return {
        after,
        audit: {
          orgId: caller.org.id,
          type: 'request.revealed',
          actor,
          clientId: after.client.id,
          requestId: after.id,
          data: {
            request: toRequestView(after, deps.urls),
            member: memberRef(caller.member),
            actor: { type: actor.type, label: actor.label },
            details: { reveal_count: after.revealCount },
          },
        },
      };
    },
    () => ({ envelope: material!.envelope, attachments: material!.attachments }),
  );
};

/**
 * A member who may end or relink a request: a recipient, the requester, or an owner or admin of
 * its organisation (the same people who may complete it).
 */
const memberParty = (deps: MemberRequestDeps, caller: MemberCaller, action: string) => ({
  orgId: caller.org.id,
  actor: memberActor(caller.member),
  data: { member: memberRef(caller.member) },
  rotationSignal: caller.org.policy.rotationSignal,
  policy: caller.org.policy,
  load: async (id: string) => {
    const { request, relation } = await findMemberRequest(deps.requests, caller, id);
    if (!relation.recipient && !relation.requester && !relation.manager) {
      throw forbidden(`Only a recipient, the requester, or an owner or admin can ${action} this request.`);
    }
    return request;
  },
});

/**
 * POST /app/api/requests/{id}/complete: a recipient, the requester, or an owner or admin ends a
 * submitted request; the envelope and attachments are purged at once (as POST /v1/.../complete).
 */
export const completeAsMember = (deps: MemberRequestDeps, caller: MemberCaller, requestId: string, prepared?: Prepared) =>
  endRequest(deps, memberParty(deps, caller, 'complete'), requestId, completion('completed_by_member'), prepared);

/** POST /app/api/requests/{id}/revoke: a pending or opened request's link stops working at once (as POST /v1/.../revoke). */
export const revokeAsMember = (deps: MemberRequestDeps, caller: MemberCaller, requestId: string, prepared?: Prepared) =>
  endRequest(deps, memberParty(deps, caller, 'revoke'), requestId, revocation('revoked_by_member'), prepared);

/** POST /app/api/requests/{id}/relink: a new link and code, shown once (as POST /v1/.../relink). */
export const relinkAsMember = (deps: MemberRequestDeps & RelinkDeps, caller: MemberCaller, requestId: string, prepared?: (result: RelinkResult) => void) =>
  relinkRequest(deps, memberParty(deps, caller, 'relink'), requestId, prepared);
