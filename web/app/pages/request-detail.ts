/// <reference lib="dom" />
/**
 * A request's page (/app/requests/<id>): its facts and audit trail, and for a submitted request
 * the buttons to reveal the credential (recipients only; opened here with this browser's key) and
 * to complete it, which destroys the stored credential. A pending or opened request can be revoked
 * and any request still waiting for its credential given a new link (both after a confirmation);
 * the new link and code are shown once. An ended request offers its custody certificate.
 *
 * Stable hooks for automated tests:
 *   #request-facts, #audit (list, li[data-type]), #reveal, #certificate (ended);
 *   #complete (then #confirm-complete, #cancel-complete);
 *   #revoke (then #confirm-revoke, #cancel-revoke), #relink (then #confirm-relink, #cancel-relink);
 *   after a relink #relinked: #request-link #copy-link #challenge-code #copy-code;
 *   #needs-relink, #unrecoverable, #reported, #sealed-key-notice (notices; the last when this browser's key cannot open it);
 *   after reveal #revealed: #revealed-credential #toggle-credential #copy-credential
 *   #revealed-note, #revealed-attachments a[download]
 */
import { open, openAttachment, type Envelope, type SealedAttachment } from '../../crypto/envelope.ts';
import { messageOf } from '../../shared/api.ts';
import { credentialField } from '../../shared/credential-field.ts';
import { busy, facts, formatTime, h, say, sayError } from '../../shared/dom.ts';
import { postThenRender } from '../actions.ts';
import { confirmAction } from '../confirm-action.ts';
import { forgetRelinked, relinkControls, relinkedSection, relinkNotices, revokeControl } from '../relink.ts';
import { certificateSection } from '../certificate-download.ts';
import type { AppContext } from '../context.ts';
import { loadKey } from '../keystore.ts';
import { actorOf, auditText, statusBadge, worded } from '../labels.ts';
import { reportNotice } from '../report-notice.ts';
import { detailsText, reasonText, verificationText } from '../request-words.ts';
import { sealedKeyNotice } from '../sealed-key.ts';
import { ticketFact } from '../ticket-fact.ts';
import type { AuditEntry, IdentityKey, RequestView } from '../shapes.ts';

interface Revealed {
  credential: string;
  note: string;
  files: Array<{ name: string; url: string; size: number }>;
}

/**
 * What was revealed on this visit of one request's page, with the object URLs of its opened
 * files; forgotten (and the URLs revoked) as soon as another page is shown. The router calls
 * forgetRevealed on every render with the id of the request shown, or null; these URLs are not
 * AppContext.objectUrl's, which would be revoked by the re-render that shows them.
 */
const revealed = new Map<string, Revealed>();
let revealedUrls: string[] = [];
export const forgetRevealed = (exceptId: string | null) => {
  forgetRelinked(exceptId);
  if (exceptId !== null && revealed.has(exceptId)) return;
  revealed.clear();
  for (const url of revealedUrls) URL.revokeObjectURL(url);
  revealedUrls = [];
};

export const requestDetailPage = async (app: AppContext, id: string) => {
  const { request, audit, your_key: sealedTo } = await app.get<{ request: RequestView; audit: AuditEntry[]; your_key: Pick<IdentityKey, 'fingerprint' | 'made_by'> | null }>(
    `/app/api/requests/${id}`,
  );
  const me = app.me().member;
  const isRecipient = request.recipients.some((recipient) => recipient.membership_id === me.membership_id);
  const inBrowser = isRecipient ? ((await loadKey(me.membership_id).catch(() => null))?.fingerprint ?? null) : null;
  const keyNotice =
    sealedTo && ['pending', 'opened', 'submitted'].includes(request.status)
      ? sealedKeyNotice({ sealedTo, inBrowser, submitted: request.status === 'submitted' })
      : null;

  const actions = h('div', { class: 'actions' });
  if (request.status === 'submitted' && isRecipient && !keyNotice) {
    const reveal = h('button', { id: 'reveal', type: 'button' }, revealed.has(id) ? 'Reveal again' : 'Reveal the credential');
    reveal.addEventListener('click', () => busy(reveal, () => doReveal(app, request)));
    actions.append(reveal);
  }
  if (request.status === 'submitted') {
    actions.append(
      confirmAction({
        id: 'complete',
        label: 'Complete and destroy',
        question: 'Complete this request? The stored credential and its files are destroyed at once, for every recipient, and cannot be revealed again.',
        confirmLabel: 'Complete and destroy',
        onConfirm: (button) => postThenRender(app, button, `/app/api/requests/${id}/complete`, 'Completed. The stored credential and its files were destroyed.'),
      }),
    );
    actions.append(h('p', { class: 'hint' }, 'Completing destroys the stored credential for everyone. Do it once you have what you need.'));
  }
  if (request.status === 'submitted' && !isRecipient) {
    actions.prepend(h('p', {}, 'You are not a recipient of this request, so you cannot open its credential.'));
  }
  actions.append(...relinkControls(app, request), ...revokeControl(app, request));
  const ended = ['completed', 'revoked', 'expired'].includes(request.status);
  // Once the request has ended its credential is destroyed: what this visit revealed goes too.
  if (ended && revealed.has(id)) forgetRevealed(null);

  const shown = revealed.get(id);
  const endReason = request.purge_reason ?? request.revoked_reason;
  return h(
    'div',
    {},
    h('h1', {}, `Request for ${request.subject.name}`),
    h('p', {}, statusBadge(request.status)),
    ...relinkNotices(request, audit),
    reportNotice(audit),
    keyNotice,
    relinkedSection(request.id),
    facts('request-facts', [
      ['Subject', [request.subject.name, request.subject.email, request.subject.phone].filter(Boolean).join(' · ')],
      ['Client', request.client?.name],
      ['Requested by', request.requester.name ?? request.requester.email],
      ['Recipients', request.recipients.map((r) => r.label).join(', ')],
      ['Reason given', request.justification],
      ['Ticket', ticketFact(request.ticket, ['owner', 'admin'].includes(me.role))],
      ['Verification', worded(verificationText(request.verification_mode), request.verification_mode)],
      ['Created', formatTime(request.created_at)],
      ['Link expires', request.link_expires_at && ['pending', 'opened'].includes(request.status) ? formatTime(request.link_expires_at) : null],
      ['Opened', request.opened_at ? formatTime(request.opened_at) : null],
      ['Submitted', request.submitted_at ? formatTime(request.submitted_at) : null],
      ['Files', request.attachments_count ? String(request.attachments_count) : null],
      ['Destroyed at the latest', request.status === 'submitted' ? formatTime(request.record_expires_at) : null],
      ['Revealed', request.reveal_count ? `${request.reveal_count} ${request.reveal_count === 1 ? 'time' : 'times'}, last ${formatTime(request.last_revealed_at)}` : null],
      ['Completed', request.completed_at ? formatTime(request.completed_at) : null],
      ['Revoked', request.revoked_at ? formatTime(request.revoked_at) : null],
      ['Why it ended', endReason ? worded(reasonText(endReason), endReason) : null],
    ]),
    actions,
    shown ? revealedSection(shown) : null,
    ended ? certificateSection('requests', request.id) : null,
    h(
      'section',
      { 'aria-labelledby': 'audit-heading' },
      h('h2', { id: 'audit-heading' }, 'Audit trail'),
      audit.length === 0
        ? h('p', {}, 'No entries.')
        : h(
            'ol',
            { id: 'audit', class: 'audit' },
            ...audit.map((entry) => {
              const details = detailsText(entry.details);
              return h(
                'li',
                { 'data-type': entry.type },
                h('time', { datetime: entry.occurred_at }, formatTime(entry.occurred_at)),
                ' ',
                h('strong', {}, auditText(entry.type)),
                ' by ',
                actorOf(entry.actor),
                // The stored details, codes and all, stay one hover away for whoever matches them against the API.
                details ? h('span', { class: 'hint', title: JSON.stringify(entry.details) }, ` (${details})`) : null,
              );
            }),
          ),
    ),
  );
};

const doReveal = async (app: AppContext, request: RequestView) => {
  const membershipId = app.me().member.membership_id;
  const key = await loadKey(membershipId).catch(() => null);
  if (!key) {
    sayError('This browser does not hold your key. Import your key on the My key page first.');
    return;
  }
  let answer: { envelope: Envelope; attachments: SealedAttachment[] };
  try {
    answer = await app.post(`/app/api/requests/${request.id}/reveal`);
  } catch (error) {
    return sayError(messageOf(error));
  }
  try {
    const opened = await open(answer.envelope, key.privateKey, key.fingerprint, request.id);
    const payload = JSON.parse(opened.plaintext) as { credential?: string; note?: string; attachments?: number };
    const served = answer.attachments ?? [];
    // The subject's browser sealed how many files it sent; older submissions did not say.
    const count = typeof payload.attachments === 'number' ? payload.attachments : null;
    if (count !== null && served.length !== count) {
      return sayError(`The subject sent ${count} ${count === 1 ? 'file' : 'files'}, but the service returned ${served.length}: the stored record was changed. Do not trust what it holds; ask the subject again.`);
    }
    const files: Revealed['files'] = [];
    for (const [index, attachment] of served.entries()) {
      const file = await openAttachment(opened.contentKey, attachment, request.id, count === null ? null : { index, count });
      const url = URL.createObjectURL(new Blob([file.bytes], { type: file.type }));
      files.push({ name: file.name, size: file.bytes.byteLength, url });
    }
    forgetRevealed(null);
    revealedUrls = files.map((file) => file.url);
    revealed.set(request.id, { credential: payload.credential ?? '', note: payload.note ?? '', files });
  } catch (error) {
    return sayError(error instanceof Error && /not sealed to your key/.test(error.message)
      ? 'This credential was not sealed to the key in this browser. If you replaced your key, it was sealed to the old one.'
      : 'The credential could not be opened with the key in this browser.');
  }
  await app.render({ keepMessages: true });
  say('The credential is revealed below. It stays masked until you choose Show.');
  document.getElementById('revealed-credential')?.focus();
};

const revealedSection = (shown: Revealed) => {
  return h(
    'section',
    { id: 'revealed', class: 'revealed', 'aria-labelledby': 'revealed-heading' },
    h('h2', { id: 'revealed-heading' }, 'The credential'),
    credentialField('revealed-credential', shown.credential),
    shown.note ? h('div', {}, h('h3', {}, 'Note'), h('p', { id: 'revealed-note', class: 'note' }, shown.note)) : null,
    shown.files.length
      ? h(
          'div',
          {},
          h('h3', {}, 'Files'),
          h('ul', { id: 'revealed-attachments' }, ...shown.files.map((file) => h('li', {}, h('a', { href: file.url, download: file.name }, file.name), ` (${file.size} bytes)`))),
        )
      : null,
  );
};
