/// <reference lib="dom" />
/**
 * Revoke and relink on a request's page. Revoke kills a pending or opened request's link; a new
 * link replaces the link of a request still waiting for its credential (sent to the wrong person,
 * locked, unusable since a recipient's key changed, revoked, or expired unused). Both ask first.
 * The new link and code are shown once, on this visit of the page, like a new request's.
 */
import type { RelinkResult } from '../../lambdas/core/use-cases/relink-request.ts';
import { messageOf } from '../shared/api.ts';
import { busy, h, say, sayError } from '../shared/dom.ts';
import { postThenRender } from './actions.ts';
import { confirmAction } from './confirm-action.ts';
import type { AppContext } from './context.ts';
import type { AuditEntry, RequestView } from './shapes.ts';
import { newIdempotencyKey, shownOnce } from './shown-once.ts';

const waiting = (request: RequestView) => request.status === 'pending' || request.status === 'opened';

/** The statuses a new link is given in (lambdas/core/request-state.ts relinkCause). */
const relinkable = (request: RequestView) => waiting(request) || request.status === 'revoked' || (request.status === 'expired' && !request.submitted_at);

/** The link made on this visit, by request id; forgotten as soon as another page is shown. */
const relinked = new Map<string, RelinkResult>();
export const forgetRelinked = (exceptId: string | null) => {
  for (const id of relinked.keys()) if (id !== exceptId) relinked.delete(id);
};

export const revokeControl = (app: AppContext, request: RequestView) =>
  waiting(request)
    ? [
        confirmAction({
          id: 'revoke',
          label: 'Revoke the link',
          question: 'Revoke this request? Its link stops working at once and the subject can no longer send the credential. You can give it a new link later.',
          confirmLabel: 'Revoke',
          onConfirm: (button) => postThenRender(app, button, `/app/api/requests/${request.id}/revoke`, 'Revoked. The link no longer works.'),
        }),
      ]
    : [];

export const relinkControls = (app: AppContext, request: RequestView) => {
  if (!relinkable(request)) return [];
  const confirm = confirmAction({
    id: 'relink',
    label: 'Send a new link',
    question: waiting(request)
      ? 'Make a new link for this request? The current link and code stop working at once; you send the new ones to the subject.'
      : 'Make a new link for this request? It becomes pending again; you send the new link and code to the subject.',
    confirmLabel: 'Make a new link',
    onConfirm: (button) =>
      busy(button, async () => {
        try {
          const result = await app.post<RelinkResult>(`/app/api/requests/${request.id}/relink`, undefined, { 'Idempotency-Key': newIdempotencyKey() });
          relinked.set(request.id, result);
          await app.render({ keepMessages: true });
          say('A new link is ready. The old link and code no longer work.');
          document.getElementById('request-link')?.focus();
        } catch (error) {
          sayError(messageOf(error));
        }
      }),
  });
  return [confirm];
};

/** What made the link unusable, as its trail says: the newest entry that did (a new link clears the flag, so it is after any). */
const UNUSABLE_BECAUSE: Record<string, string> = {
  'request.link_locked': 'It was locked after too many wrong codes. Send a new link.',
  'request.email_codes_used_up': 'Every code it may email was sent and none is left to type. Send a new link.',
  'request.needs_relink': 'A recipient\u2019s key changed since it was made, so the subject\u2019s page refuses to encrypt. Send a new link.',
};
const unusableBecause = (trail: AuditEntry[]) =>
  UNUSABLE_BECAUSE[trail.filter((entry) => entry.type in UNUSABLE_BECAUSE).sort((a, b) => b.seq - a.seq)[0]?.type ?? ''] ??
  'It was locked after too many wrong codes, or a recipient\u2019s key changed since it was made. Send a new link.';

/** Why the request needs attention: its link cannot lead to a submission, or nobody can open what it holds. */
export const relinkNotices = (request: RequestView, trail: AuditEntry[]) => [
  request.needs_relink && waiting(request)
    ? h('p', { id: 'needs-relink', class: 'notice' }, h('strong', {}, 'This link can no longer be used. '), unusableBecause(trail))
    : null,
  request.unrecoverable && request.status === 'submitted'
    ? h(
        'p',
        { id: 'unrecoverable', class: 'notice' },
        h('strong', {}, 'No recipient can open this credential any more, unless one still has an old key. '),
        // A replaced key may live on in another browser or a backup (and a replacement may still
        // await approval): destroying at once on this notice could lose a credential still readable.
        'Since it was submitted, every recipient\u2019s key was replaced (or a replacement awaits approval) or their membership was disabled. A recipient who still has a key it was sealed to, in another browser or a backup, can open it there; enabling a disabled member again makes it openable again. If nobody can, complete the request to destroy it and ask for the credential again with a new request.',
      )
    : null,
];

/** The new link and code, once. */
export const relinkedSection = (requestId: string) => {
  const result = relinked.get(requestId);
  if (!result?.link) return null;
  return h(
    'section',
    { id: 'relinked', 'aria-labelledby': 'relinked-heading' },
    h('h2', { id: 'relinked-heading' }, 'Send the new link to the subject'),
    h('p', { class: 'notice' }, h('strong', {}, 'Copy them now: the new link and code are shown only this once. '), 'Send the link by one channel and give the code another way, never in the same message.'),
    shownOnce({ id: 'request-link', label: 'The new link', value: result.link, rows: 3, copyId: 'copy-link', copyText: 'Copy the link', copied: 'The link is copied.' }),
    result.challenge_code
      ? shownOnce({ id: 'challenge-code', label: 'The new code to give the subject', value: result.challenge_code, copyId: 'copy-code', copyText: 'Copy the code', copied: 'The code is copied.' })
      : null,
    result.excluded_recipients.length ? h('p', { class: 'hint' }, `Left out this time (disabled, or their new key awaits approval): ${result.excluded_recipients.join(', ')}.`) : null,
  );
};
