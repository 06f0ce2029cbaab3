/// <reference lib="dom" />
/**
 * Shares in the member application (docs/web-api.md, Shares): a credential sent to someone outside
 * the organisation with a one-time link. This browser makes a one-time key pair, seals the
 * credential to it (web/crypto/share-key.ts) and posts only the envelope; the link the service
 * answers gets the private key appended as its fragment, shown once and never sent anywhere.
 *
 * Routes: /app/shares (list), /app/shares/new (create), /app/shares/<id> (detail, destroy,
 * certificate downloads).
 *
 * Stable hooks for automated tests:
 *   list:    #shares (table), each row's link a[data-share-id="<id>"], #no-shares, #new-share
 *   new:     #share-form #share-credential #toggle-share-credential #generate-length #generate
 *            #share-label #share-ticket #share-expiry #share-views #create-share;
 *            after creating #share-created: #share-link (the whole link) #copy-share-link
 *            #share-fingerprint #view-share; a replayed create shows #share-replayed
 *   detail:  #share-facts, #destroy-share, then #confirm-destroy / #cancel-destroy;
 *            #certificate (web/app/certificate-download.ts)
 */
import type { Envelope } from '../../crypto/envelope.ts';
import { generatePassword, makeShareKey, PASSWORD_LENGTH, sealShare } from '../../crypto/share-key.ts';
import { ApiFailure, messageOf } from '../../shared/api.ts';
import { keepLinesOnPaste, showToggle } from '../../shared/credential-field.ts';
import { busy, clearMessages, copyText, facts, field, fingerprintCode, focusHeading, formatTime, h, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import { certificateSection } from '../certificate-download.ts';
import { worded } from '../labels.ts';
import { reasonText } from '../request-words.ts';
import type { AppContext } from '../context.ts';
import { newIdempotencyKey, shownOnce } from '../shown-once.ts';
import { maxChars } from '../../shared/max-chars.ts';

export interface ShareView {
  id: string;
  object: 'share';
  status: 'active' | 'purged' | 'expired';
  label: string | null;
  ticket_ref: string | null;
  created_by: { membership_id: string; name: string | null; email: string | null };
  sealed_to_fingerprint: string;
  view_limit: number;
  views: number;
  expires_at: string;
  created_at: string;
  last_viewed_at: string | null;
  ended_at: string | null;
  end_reason: null | 'view_limit_reached' | 'expired' | 'ticket_closed' | 'purged_by_member';
  purge_scheduled_at: string | null;
}

const STATUS_TEXT: Record<string, string> = { active: 'Live', purged: 'Destroyed', expired: 'Expired' };
export const shareBadge = (status: string) => h('span', { class: `badge badge-${status}` }, STATUS_TEXT[status] ?? status);

const titleOf = (share: ShareView) => share.label ?? `Share of ${formatTime(share.created_at, 'short')}`;
const viewsText = (share: ShareView) => `${share.views} of ${share.view_limit}`;
const personOf = (person: ShareView['created_by']) => person.name ?? person.email ?? 'A member';
const isManager = (app: AppContext) => ['owner', 'admin'].includes(app.member()?.role ?? '');

// --- The list ----------------------------------------------------------------------------------

export const sharesPage = async (app: AppContext) => {
  const { data } = await app.get<{ data: ShareView[] }>('/app/api/shares');
  const manager = isManager(app);
  const row = (share: ShareView) =>
    h(
      'tr',
      {},
      h(
        'th',
        { scope: 'row', class: 'label-cell' },
        h('a', { href: `/app/shares/${share.id}`, 'data-share-id': share.id }, titleOf(share)),
        manager ? h('span', { class: 'sub' }, `by ${personOf(share.created_by)}`) : null,
      ),
      h('td', {}, share.ticket_ref ?? '—'),
      h('td', {}, shareBadge(share.status)),
      h('td', { class: 'nowrap' }, viewsText(share)),
      h('td', { class: 'nowrap' }, share.status === 'active' ? formatTime(share.expires_at, 'short') : h('span', {}, h('span', { class: 'sub' }, 'Ended'), formatTime(share.ended_at, 'short'))),
      h('td', { class: 'nowrap' }, formatTime(share.created_at, 'short')),
    );
  const columns = ['Label', 'Ticket', 'Status', 'Views', 'Expires', 'Created'];
  const table = h(
    'table',
    { id: 'shares' },
    h('caption', {}, manager ? "The organisation's shares, newest first" : 'Shares you made, newest first'),
    h('thead', {}, h('tr', {}, ...columns.map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...data.map(row)),
  );
  return h(
    'div',
    {},
    h('h1', {}, 'Shares'),
    h('p', {}, 'Send a credential to someone outside your organisation with a one-time link. It is encrypted in your browser; the link holds the only key.'),
    h('p', {}, h('a', { id: 'new-share', href: '/app/shares/new', class: 'button' }, 'New share')),
    data.length === 0
      ? h('p', { id: 'no-shares' }, 'No shares yet. Choose New share to send a credential with a one-time link.')
      : tableWrap(table),
  );
};

// --- Create ------------------------------------------------------------------------------------

const EXPIRY_CHOICES: Array<[number, string]> = [
  [60, '1 hour'],
  [1440, '1 day'],
  [10080, '7 days'],
  [43200, '30 days'],
];
const DEFAULT_EXPIRY = 1440;
const MAX_VIEWS = 10;
/** The envelope's ciphertext is at most 64 KiB of base64; a credential is far smaller. */
const MAX_CREDENTIAL_CHARS = 10_000;

interface Sealed {
  envelope: Envelope;
  fingerprint: string;
  fragment: string;
}

interface Created {
  share: ShareView;
  link: string | null;
}

export const newSharePage = async (app: AppContext) => {
  const input = h('input', { id: 'share-credential', name: 'credential', type: 'password', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', maxlength: MAX_CREDENTIAL_CHARS });
  // A key or certificate of several lines, pasted, becomes a textarea that keeps them (shown: it cannot be masked).
  let credential: HTMLInputElement | HTMLTextAreaElement = input;
  const { button: toggle, set: setShown } = showToggle('toggle-share-credential', 'share-credential', (shown) => {
    input.type = shown ? 'text' : 'password';
  });

  const length = h('input', { id: 'generate-length', name: 'length', type: 'number', inputmode: 'numeric', min: PASSWORD_LENGTH.min, max: PASSWORD_LENGTH.max, value: PASSWORD_LENGTH.default, class: 'short' });
  const generate = h('button', { id: 'generate', type: 'button', class: 'secondary' }, 'Generate');
  generate.addEventListener('click', () => {
    const wanted = Number(length.value);
    if (!Number.isInteger(wanted) || wanted < PASSWORD_LENGTH.min || wanted > PASSWORD_LENGTH.max) {
      sayError(`Choose a length from ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters.`);
      return length.focus();
    }
    credential.value = generatePassword(wanted);
    credential.dispatchEvent(new Event('input'));
    setShown(true);
    say(`A random password of ${wanted} characters was made in this browser. It is shown so you can also set it where it is needed.`);
    credential.focus();
  });

  const label = h('input', { id: 'share-label', name: 'label', type: 'text', ...maxChars(120), autocomplete: 'off' });
  const ticket = h('input', { id: 'share-ticket', name: 'ticket_ref', type: 'text', ...maxChars(120), autocomplete: 'off', spellcheck: 'false' });
  const expiry = h('select', { id: 'share-expiry', name: 'expires_in_minutes' }, ...EXPIRY_CHOICES.map(([minutes, text]) => h('option', { value: minutes, selected: minutes === DEFAULT_EXPIRY }, text)));
  const views = h('select', { id: 'share-views', name: 'view_limit' }, ...Array.from({ length: MAX_VIEWS }, (_, i) => h('option', { value: i + 1, selected: i === 0 }, i === 0 ? '1 (once)' : String(i + 1))));
  const submit = h('button', { id: 'create-share', type: 'submit' }, 'Encrypt and make the link');

  const form = h(
    'form',
    { id: 'share-form', novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'share-credential' }, 'Credential'),
      h('p', { class: 'hint', id: 'share-credential-hint' }, 'Type or paste it, or generate a strong random password. It is encrypted in this browser; the service never sees it.'),
      h('div', { class: 'with-button' }, credential, toggle),
    ),
    h('div', { class: 'field generate' }, h('label', { for: 'generate-length' }, 'Length of a generated password'), h('div', { class: 'with-button' }, length, generate)),
    field('Label (optional)', label, 'For your list only, for example “VPN for Dana at Acme”. The recipient does not see it.'),
    field('Ticket reference (optional)', ticket, 'A trusted close of this ticket destroys the share (ticket statuses are trusted only when your organisation trusts unverified ticket statuses).'),
    field('Link expires after', expiry),
    field('Times it can be opened', views, 'After the last opening the service destroys its copy.'),
    submit,
  );
  credential.setAttribute('aria-describedby', 'share-credential-hint');

  /** The credential as sealed: kept (not the plaintext) so a retry after a lost answer sends the same body. */
  let sealed: Sealed | null = null;
  /** The last body sent and its Idempotency-Key: the same body again reuses the key, so it cannot create two shares. */
  let lastAttempt: { key: string; body: string } | null = null;
  const forgetSealed = () => {
    if (credential.value) sealed = null;
  };
  input.addEventListener('input', forgetSealed);
  keepLinesOnPaste(input, (area) => {
    credential = area;
    area.addEventListener('input', forgetSealed);
    forgetSealed();
    toggle.hidden = true;
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    if (!credential.value && !sealed) {
      sayError('Enter or generate the credential to share.');
      return credential.focus();
    }
    if (credential.value.length > MAX_CREDENTIAL_CHARS) {
      sayError(`The credential may have at most ${MAX_CREDENTIAL_CHARS} characters.`);
      return credential.focus();
    }
    const ticketRef = ticket.value.trim();
    void busy(submit, async () => {
      if (credential.value) {
        try {
          say('Encrypting in your browser…');
          const key = await makeShareKey();
          const envelope = await sealShare({ credential: credential.value }, key);
          sealed = { envelope, fingerprint: key.fingerprint, fragment: key.fragment };
        } catch {
          return sayError('Your browser could not encrypt the credential. Try an up-to-date browser.');
        }
        // Sealed: the plaintext leaves the page.
        credential.value = '';
        setShown(false);
      }
      const current = sealed!;
      const body = {
        envelope: current.envelope,
        sealed_to_fingerprint: current.fingerprint,
        label: label.value.trim() || null,
        ticket_ref: ticketRef || null,
        expires_in_minutes: Number(expiry.value),
        view_limit: Number(views.value),
      };
      const text = JSON.stringify(body);
      if (lastAttempt?.body !== text) lastAttempt = { key: newIdempotencyKey(), body: text };
      let created: Created;
      try {
        say('Storing the encrypted credential…');
        created = await app.post<Created>('/app/api/shares', body, { 'Idempotency-Key': lastAttempt.key });
      } catch (error) {
        sayError(
          error instanceof ApiFailure && error.status === 0
            ? 'The service could not be reached. Your credential is encrypted and kept in this page: press the button again to retry.'
            : messageOf(error),
        );
        if (!credential.value) credential.setAttribute('placeholder', 'Encrypted and ready: press the button again, or type a new one');
        return;
      }
      sealed = null;
      const result = created.link ? createdSection(created.share, `${created.link}#${current.fragment}`) : replayedSection(created.share);
      replaceChildren(form.parentElement!, h('h1', {}, 'New share'), result);
      focusHeading(result.querySelector('h2')!);
      say(created.link ? 'The link is ready. Copy it now: it is shown only once.' : 'This share was already created.');
    });
  });

  return h(
    'div',
    {},
    h('h1', {}, 'New share'),
    h('p', {}, 'The credential is encrypted in this browser to a new one-time key. You get a link that holds the key; whoever opens it can read the credential, as many times as you allow, until it expires.'),
    form,
  );
};

const createdSection = (share: ShareView, link: string) =>
  h(
    'section',
    { id: 'share-created', 'aria-labelledby': 'created-heading' },
    h('h2', { id: 'created-heading' }, 'Your one-time link'),
    h(
      'p',
      { class: 'notice' },
      h('strong', {}, 'Copy it now: it is shown only this once. '),
      'The link is the only way to open the credential. Its key is in the part after the “#”, which never reaches the service, so the service cannot show the link again or recover the credential.',
    ),
    shownOnce({ id: 'share-link', label: 'The link', value: link, rows: 4, copyId: 'copy-share-link', copyText: 'Copy the link', copied: 'The link is copied. Send it to the recipient, then clear your clipboard.' }),
    facts('share-created-facts', [
      ['Sealed to key', fingerprintCode(share.sealed_to_fingerprint, 'share-fingerprint')],
      ['Can be opened', `${share.view_limit} ${share.view_limit === 1 ? 'time' : 'times'}`],
      ['Expires', formatTime(share.expires_at)],
      ['Label', share.label],
      ['Ticket', share.ticket_ref],
    ]),
    h('p', { class: 'hint' }, 'Send the link by a channel the recipient already uses. The recipient’s page checks that the key in the link has this fingerprint before it opens anything.'),
    h('p', {}, h('a', { id: 'view-share', href: `/app/shares/${share.id}` }, 'See this share'), ' · ', h('a', { href: '/app/shares/new' }, 'Share another credential')),
  );

const replayedSection = (share: ShareView) =>
  h(
    'section',
    { id: 'share-replayed', 'aria-labelledby': 'replayed-heading' },
    h('h2', { id: 'replayed-heading' }, 'This share was already created'),
    h('p', {}, 'Your first attempt reached the service, but its answer did not reach this page, and the link cannot be shown a second time. Destroy that share and make a new one.'),
    h('p', {}, h('a', { id: 'view-share', href: `/app/shares/${share.id}` }, 'Go to the share to destroy it')),
  );

// --- Detail ------------------------------------------------------------------------------------

export const shareDetailPage = async (app: AppContext, id: string) => {
  const share = await app.get<ShareView>(`/app/api/shares/${id}`);
  const live = share.status === 'active';
  const actions = h('div', { class: 'actions', id: 'share-actions' });
  if (live) {
    const destroy = h('button', { id: 'destroy-share', type: 'button', class: 'danger', 'aria-expanded': 'false', 'aria-controls': 'destroy-confirmation' }, 'Destroy now');
    const confirmation = h('div', { id: 'destroy-confirmation', class: 'confirm', hidden: true });
    const confirm = h('button', { id: 'confirm-destroy', type: 'button', class: 'danger' }, 'Yes, destroy it');
    const cancel = h('button', { id: 'cancel-destroy', type: 'button', class: 'secondary' }, 'Cancel');
    const question = h('p', { id: 'destroy-question' }, 'Destroy this share? The link stops working at once and the service deletes the encrypted credential. This cannot be undone.');
    replaceChildren(confirmation, question, confirm, cancel);
    confirmation.setAttribute('role', 'group');
    confirmation.setAttribute('aria-labelledby', 'destroy-question');
    const close = () => {
      confirmation.hidden = true;
      destroy.setAttribute('aria-expanded', 'false');
      destroy.focus();
    };
    destroy.addEventListener('click', () => {
      confirmation.hidden = false;
      destroy.setAttribute('aria-expanded', 'true');
      cancel.focus();
    });
    cancel.addEventListener('click', close);
    confirmation.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') close();
    });
    confirm.addEventListener('click', () =>
      busy(confirm, async () => {
        try {
          await app.post(`/app/api/shares/${id}/purge`);
          await app.render({ keepMessages: true });
          say('Destroyed. The link no longer opens anything.');
        } catch (error) {
          if (error instanceof ApiFailure && error.status === 409) {
            await app.render({ keepMessages: true });
            return sayError('This share had already ended.');
          }
          sayError(messageOf(error));
        }
      }),
    );
    actions.append(destroy, confirmation);
  }
  return h(
    'div',
    {},
    h('h1', {}, titleOf(share)),
    h('p', {}, shareBadge(share.status)),
    facts('share-facts', [
      ['Label', share.label],
      ['Ticket', share.ticket_ref],
      ['Created by', personOf(share.created_by)],
      ['Created', formatTime(share.created_at)],
      [live ? 'Expires' : 'Was to expire', formatTime(share.expires_at)],
      ['Views', `${viewsText(share)} allowed`],
      ['Last opened', share.last_viewed_at ? formatTime(share.last_viewed_at) : null],
      ['Destruction scheduled', share.purge_scheduled_at ? formatTime(share.purge_scheduled_at) : null],
      ['Ended', share.ended_at ? formatTime(share.ended_at) : null],
      ['Why it ended', share.end_reason ? worded(reasonText(share.end_reason), share.end_reason) : null],
      ['Sealed to key', fingerprintCode(share.sealed_to_fingerprint)],
    ]),
    live
      ? h('p', { class: 'hint' }, 'The link was shown once, when the share was made; it cannot be shown again. Destroying the share makes the link useless at once.')
      : h('p', { class: 'hint' }, 'The service has destroyed its copy of the encrypted credential.'),
    actions,
    certificateSection('shares', share.id, live ? 'The share is still live, so its certificate is not final yet: it may gain events until the share ends.' : undefined),
    h('p', {}, h('a', { href: '/app/shares' }, 'Back to shares')),
  );
};
