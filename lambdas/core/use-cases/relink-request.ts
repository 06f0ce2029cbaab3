import type { Clock } from '../clock.ts';
import type { CodeKey } from '../code-key.ts';
import { newSixDigitCode } from '../codes.ts';
import { recipientCommitment } from '../commitment.ts';
import { illegalTransition, retryOnConflict, validationFailed } from '../errors.ts';
import { syncExpirySchedule, type ExpiryScheduling } from '../expiry-schedule.ts';
import { randomToken, sha256Hex } from '../hashing.ts';
import { recipientOf, type HandoffRequest, type Member, type Policy, type Recipient, aRequestWhoseStatusIs } from '../model.ts';
import { needsChallengeCode, strengthenedMode } from '../policy.ts';
import type { Directory, HandoffRepository } from '../ports.ts';
import { relink, relinkCause } from '../request-state.ts';
import { requestAuditEntry, sealingRecord } from '../request-audit.ts';
import { toRequestView, type PublicUrls, type RequestView } from '../request-view.ts';
import { isLocked } from '../subject-flow.ts';
import { challengeCodeHash } from './create-request.ts';
import type { Caller } from '../caller.ts';
import { apiParty, type EndingParty } from './end-request.ts';

/** However the request was made, a new link's commitment is the service's, over the recipients' keys as they are now. */
export const RELINK_COMMITMENT_NOTE =
  'The recipient commitment of this new link was computed by the service from the recipients\' current keys. ' +
  'It lets the subject\'s browser detect later changes to the recipient set, but does not protect against a ' +
  'compromised server when the link was made.';

export interface RelinkDeps extends ExpiryScheduling {
  requests: Pick<HandoffRepository, 'get' | 'relink'>;
  directory: Pick<Directory, 'listMembers'>;
  clock: Clock;
  urls: PublicUrls;
  codeKey: CodeKey;
}

/** Who gives a request a new link: found as their access allows, audited as themselves, under their organisation's policy. */
export interface RelinkParty extends EndingParty {
  policy: Pick<Policy, 'linkLifetimeMinutes' | 'minimumVerification'>;
}

/**
 * The request's recipients as they can receive now: each still an active member with a verified
 * key, sealed to that key (a replaced and approved key replaces the old one; a replacement that
 * awaits approval, or a disabled member, is left out and named).
 */
const recipientsNow = (request: HandoffRequest, members: Member[]) => {
  const byId = new Map(members.map((member) => [member.id, member]));
  const recipients: Recipient[] = [];
  const excluded: string[] = [];
  for (const recipient of request.recipients) {
    const member = byId.get(recipient.membershipId);
    if (member?.active && member.identityKey?.state === 'verified') {
      recipients.push(recipientOf({ ...member, identityKey: member.identityKey }));
    } else excluded.push(member?.name ?? recipient.label);
  }
  return { recipients, excluded };
};

/** The answer: like a new request's creation result, the link and code shown this once. */
export interface RelinkResult {
  request: RequestView;
  link: string | null;
  link_without_fragment: string | null;
  commit: string;
  challenge_code: string | null;
  excluded_recipients: string[];
  commitment: { computed_by: 'server'; note: string };
}

/**
 * A new link for a request whose link was sent wrongly, locked, made unusable by a recipient's new
 * key, revoked, or expired before anything was submitted: a new token and code (the old ones dead
 * in the same transaction), the recipients and commitment resolved again, the link's lifetime
 * restarted, and the request pending again. The link and code are in this answer only.
 */
export const relinkRequest = (deps: RelinkDeps, party: RelinkParty, requestId: string, prepared?: (result: RelinkResult) => void): Promise<RelinkResult> =>
  // A request changed between read and write is read again and the new link decided afresh.
  retryOnConflict(async () => {
    const before = await party.load(requestId);
    const cause = relinkCause(before, isLocked(before), deps.clock.now());
    if (!cause) {
      throw illegalTransition(
        before.status === 'expired'
          ? 'This request expired after its credential was submitted; create a new request instead.'
          : `${aRequestWhoseStatusIs(before.status)} cannot be given a new link; only pending, opened, revoked, or expired-before-submission ones can.`,
      );
    }
    const { recipients, excluded } = recipientsNow(before, await deps.directory.listMembers(party.orgId));
    if (recipients.length === 0) {
      throw validationFailed({ recipients: ['No recipient of this request can receive a credential any more (each is disabled or has a key awaiting approval); create a new request.'] });
    }
    // A minimum raised since the request was made applies to its new link, as to a new request.
    const verificationMode = strengthenedMode(before.verificationMode, party.policy.minimumVerification, before.subject.email !== null);
    if (!verificationMode) {
      throw validationFailed({
        verification_mode: [`The organisation's minimum verification is now ${party.policy.minimumVerification}, which emails the subject a code, and this request has no subject email; create a new request.`],
      });
    }
    const now = deps.clock.now();
    const commit = recipientCommitment(recipients);
    const token = randomToken(32);
    const tokenHash = sha256Hex(token);
    const challengeCode = needsChallengeCode(verificationMode) ? newSixDigitCode() : null;
    const after = relink(before, {
      at: now,
      linkLifetimeMinutes: party.policy.linkLifetimeMinutes,
      tokenHash,
      challengeCodeHash: challengeCode ? await challengeCodeHash(deps.codeKey, before.id, challengeCode) : null,
      recipients,
      commit,
      verificationMode,
    });
    const view = toRequestView(after, deps.urls);
    const linkWithoutFragment = `${deps.urls.appUrl}/r/${token}`;
    const result: RelinkResult = {
      request: view,
      link: `${linkWithoutFragment}#${commit}`,
      link_without_fragment: linkWithoutFragment,
      commit,
      challenge_code: challengeCode,
      excluded_recipients: excluded,
      commitment: { computed_by: 'server', note: RELINK_COMMITMENT_NOTE },
    };
    const details = {
      cause,
      previous_status: before.status,
      excluded_recipients: excluded,
      ...(verificationMode !== before.verificationMode ? { verification_mode_raised_from: before.verificationMode } : {}),
    };
    prepared?.(result);
    const data = { ...party.data, custody: sealingRecord(after, 'server') };
    await deps.requests.relink(before, after, tokenHash, requestAuditEntry(party.orgId, party.actor, view, 'request.relinked', details, data));
    // The new link expires at its own time: the schedule follows it (a failure is covered by the sweep).
    await syncExpirySchedule(deps, after);
    return result;
  });

/** POST /v1/requests/{id}/relink: an API key's caller, within its client scope (`requests:write`). */
export const relinkThroughApi = (deps: RelinkDeps, caller: Caller, requestId: string, prepared?: (result: RelinkResult) => void) =>
  relinkRequest(deps, { ...apiParty(deps, caller), policy: caller.org.policy }, requestId, prepared);
