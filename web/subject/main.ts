/// <reference lib="dom" />
/**
 * The subject's link page, served at /r/<token>#<commitment> (docs/web-api.md).
 *
 * Loading the HTML changes nothing on the server. This script reads the link token from the path
 * (sent only in the X-Link-Token header), fetches the request, recomputes the recipient
 * commitment from the served public keys and compares it with the fragment. Only when they match
 * does it mark the link opened (POST /subject/open), ask for the verification codes and offer
 * the credential form. The credential, note and files are sealed in this browser
 * (web/crypto/envelope.ts) to the recipients whose keys were checked; the service stores only the
 * envelope.
 *
 * Stable hooks for automated tests:
 *   #status              polite live region (role="status"): progress and outcomes
 *   #error               live region (role="alert"): errors
 *   #request-summary     who asks and why (dl)
 *   #refusal             shown instead of everything when the commitment does not match
 *   #link-closed         shown for a 410 link_closed, with [data-reason="<reason>"]
 *   #link-invalid        shown for an unknown link (404)
 *   #verify-form         #challenge-code, #send-email-code, #email-code, #verify, #attempts-left
 *   #credential-form     #credential, #toggle-credential, #note, #attachments (when allowed), #submit
 *   #submitted           the success panel after submission
 *   #report-form         #report-reason, #report
 *   #expiry-warning      alert region: the link expires in less than two minutes (expiry-watch.ts)
 */
import { seal, sealAttachment, type SealedAttachment } from '../crypto/envelope.ts';
import { encryptionNotice } from './encryption-notice.ts';
import { watchExpiry } from './expiry-watch.ts';
import { commitmentOf, fingerprintOf } from '../crypto/identity.ts';
import { ApiFailure, call, messageOf } from '../shared/api.ts';
import { busy, byId, clearMessages, facts, field, focusHeading, formatTime, h, refuseField, replaceChildren, say, sayError } from '../shared/dom.ts';

type VerificationMode = 'none' | 'challenge' | 'email_otp' | 'either' | 'both';

interface Verification {
  passed: boolean;
  challenge_passed: boolean;
  email_passed: boolean;
  attempts_left: number;
}

interface SubjectRequest {
  id: string;
  status: string;
  organisation: { name: string };
  client: { name: string } | null;
  requester: { name: string | null; email: string | null };
  subject: { name: string };
  justification: string;
  verification_mode: VerificationMode;
  verification: Verification;
  allow_attachments: boolean;
  limits: { attachments: number; attachment_bytes: number };
  link_expires_at: string | null;
  recipients: Array<{ membership_id: string; label: string; public_key: string }>;
}

interface Recipient {
  membershipId: string;
  fingerprint: string;
  publicKey: string;
  label: string;
}

const content = () => byId('content');

const state: { token: string; request: SubjectRequest | null; recipients: Recipient[] } = { token: '', request: null, recipients: [] };

const linkCall = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
  call<T>(method, path, { body, headers: { 'X-Link-Token': state.token } });

const tokenFromPath = (pathname: string) => {
  const match = /^\/r\/([^/]+)\/?$/.exec(pathname);
  if (!match) return '';
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return '';
  }
};

const commitmentFromFragment = (hash: string) => hash.replace(/^#/, '').replace(/^c=/, '').trim();

const describe = (request: SubjectRequest) => {
  const requester = [request.requester.name, request.requester.email ? `<${request.requester.email}>` : null].filter(Boolean).join(' ');
  return h(
    'section',
    { 'aria-labelledby': 'summary-heading' },
    h('h2', { id: 'summary-heading' }, 'Who is asking, and why'),
    facts('request-summary', [
      ['Requested by', requester || 'Unknown'],
      ['Organisation', request.organisation.name],
      ['For client', request.client?.name],
      ['Addressed to', request.subject.name],
      ['Reason given', request.justification],
      ['Only these people can open it', request.recipients.map((r) => r.label).join(', ')],
      ['Link valid until', request.link_expires_at ? formatTime(request.link_expires_at) : null],
    ]),
  );
};

// --- Outcomes that end the page --------------------------------------------------------------

/**
 * A page that ends the flow says so in its title and its h1 too (a screen reader announces the
 * title; the h1 is what a person reads first), and its heading takes the focus.
 */
const endPage = (heading: string) => {
  document.title = heading;
  byId('page-title').textContent = heading;
  const shown = content().querySelector<HTMLElement>('h2');
  if (shown) focusHeading(shown);
};

const showInvalid = () => {
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'link-invalid', 'aria-labelledby': 'invalid-heading' },
      h('h2', { id: 'invalid-heading' }, 'This link is not valid'),
      h('p', {}, 'Check that you opened the whole link from the message you received. If it still does not work, ask the person who sent it for a new link.'),
    ),
  );
  say('This link is not valid.');
  endPage('This link is not valid');
};

const CLOSED_HEADINGS: Record<string, string> = {
  submitted: 'The credential has already been sent',
  completed: 'This request is finished',
  revoked: 'This request was withdrawn',
  expired: 'This link has expired',
  locked: 'This link is locked',
  replaced: 'This link was replaced by a newer one',
};

const showClosed = (reason: string, message: string) => {
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'link-closed', 'data-reason': reason, 'aria-labelledby': 'closed-heading' },
      h('h2', { id: 'closed-heading' }, CLOSED_HEADINGS[reason] ?? 'This link can no longer be used'),
      h('p', {}, message),
      h('p', {}, reason === 'submitted' ? 'There is nothing more to do. You can close this page.' : 'Nothing can be sent with this link any more. You can close this page.'),
    ),
  );
  say(message);
  endPage(CLOSED_HEADINGS[reason] ?? 'This link can no longer be used');
};

const showRefusal = (missing: boolean) => {
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'refusal', class: 'refusal', 'aria-labelledby': 'refusal-heading' },
      h('h2', { id: 'refusal-heading' }, 'Do not send anything'),
      missing
        ? h('p', {}, 'This link is incomplete: the security check after the “#” is missing, so this page cannot confirm who would be able to read what you send. Open the whole link from the message you received.')
        : h('p', {}, 'The recipients of this request have changed since the link was made, so this page cannot confirm who would be able to read what you send.'),
      h(
        'p',
        {},
        'Do not send anything. Contact the person who asked you, using a phone number or email address you already know (not one shown on this page), and tell them the link failed its security check.',
      ),
    ),
    missing ? null : reportSection(),
  );
  sayError(missing ? 'This link is incomplete. Do not send anything.' : 'The recipients of this request have changed since the link was made. Do not send anything.');
};

/** Every answer that can end the flow: 404, 410; anything else is shown in the alert region. */
const handleFailure = (error: unknown) => {
  if (error instanceof ApiFailure && error.status === 404) return showInvalid();
  if (error instanceof ApiFailure && error.status === 410) return showClosed(error.reason ?? 'closed', error.message);
  sayError(messageOf(error));
};

// --- Verification ------------------------------------------------------------------------------

const needsChallenge = (request: SubjectRequest) =>
  ['challenge', 'either', 'both'].includes(request.verification_mode) && !request.verification.challenge_passed;
const needsEmail = (request: SubjectRequest) =>
  ['email_otp', 'either', 'both'].includes(request.verification_mode) && !request.verification.email_passed;

const verifyIntro = (request: SubjectRequest) => {
  switch (request.verification_mode) {
    case 'challenge':
      return 'Enter the six-digit code the person who asked gave you by phone or in person.';
    case 'email_otp':
      return 'We will email you a one-time code. Enter it below.';
    case 'either':
      return 'Enter the six-digit code you were given by phone or in person, or ask for a code by email. One of them is enough.';
    case 'both':
      return 'Enter both the six-digit code you were given by phone or in person and a code we email you.';
    default:
      return '';
  }
};

/** A typed code without the spaces and dashes people put in when a code is read out to them. */
/**
 * A code refused: the message in the alert region, each refused field marked invalid and tied to
 * the message and the attempts left, and the first of them focused, so a keyboard or screen-reader
 * user stays where the code is typed again.
 */
const refuseCodes = (ids: string[], message: string) => {
  sayError(message);
  const fields = ids.map((id) => document.getElementById(id)).filter((input): input is HTMLElement => input !== null);
  // The last refused first, so the focus ends on the first.
  for (const input of fields.reverse()) refuseField(input, message, ['attempts-left']);
};

const typedCode = (id: string) => (document.getElementById(id) as HTMLInputElement | null)?.value.replace(/[\s-]+/g, '') ?? '';

const attemptsText = (verification: Verification) =>
  typeof verification.attempts_left === 'number'
    ? `${verification.attempts_left} ${verification.attempts_left === 1 ? 'attempt' : 'attempts'} left before this link locks.`
    : '';

const verifyStep = (request: SubjectRequest) => {
  const challenge = needsChallenge(request)
    ? field(
        'Code you were given',
        // Room for a code read out in groups ("740 524", "740-524"): the separators are dropped
        // before it is sent, so the field must not cut the last digits off first.
        h('input', { id: 'challenge-code', name: 'challenge_code', type: 'text', inputmode: 'numeric', autocomplete: 'off', maxlength: 16, spellcheck: 'false' }),
        'Six digits, given to you by phone or in person. Spaces and dashes are fine.',
      )
    : null;
  const emailButton = needsEmail(request) ? h('button', { id: 'send-email-code', type: 'button', class: 'secondary' }, 'Email me a code') : null;
  const email = needsEmail(request)
    ? h(
        'div',
        { class: 'email-code' },
        emailButton,
        field('Code from the email', h('input', { id: 'email-code', name: 'email_code', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 12, spellcheck: 'false' })),
      )
    : null;
  const done: string[] = [];
  if (request.verification.challenge_passed) done.push('The code you were given was accepted.');
  if (request.verification.email_passed) done.push('The emailed code was accepted.');

  const verifyButton = h('button', { id: 'verify', type: 'submit' }, 'Verify');
  const form = h(
    'form',
    { id: 'verify-form', novalidate: true },
    h('p', {}, verifyIntro(request)),
    ...done.map((line) => h('p', { class: 'ok' }, line)),
    challenge,
    email,
    h('p', { id: 'attempts-left', class: 'hint' }, attemptsText(request.verification)),
    verifyButton,
  );

  emailButton?.addEventListener('click', () =>
    busy(emailButton, async () => {
      try {
        await linkCall('POST', '/subject/email-code');
        say('A code is on its way to your email address. It is valid for a few minutes.');
        document.getElementById('email-code')?.focus();
      } catch (error) {
        handleFailure(error);
      }
    }),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const challengeCode = typedCode('challenge-code');
    const emailCode = typedCode('email-code');
    if (!challengeCode && !emailCode) return refuseCodes(['challenge-code', 'email-code'], 'Enter a code first.');
    const body: Record<string, string> = {};
    if (challengeCode) body.challenge_code = challengeCode;
    if (emailCode) body.email_code = emailCode;
    void busy(verifyButton, async () => {
      let verification: Verification;
      try {
        verification = (await linkCall<{ verification: Verification }>('POST', '/subject/verify', body)).verification;
      } catch (error) {
        const carried = error instanceof ApiFailure ? (error.body.verification as Verification | undefined) : undefined;
        if (!carried) return handleFailure(error);
        verification = carried;
      }
      // The attempt that used the last one locked the link: nothing more can be tried here.
      if (verification.attempts_left === 0 && !verification.passed) {
        return showClosed('locked', 'Too many wrong codes: this link is now locked. Ask the person who sent it for a new link.');
      }
      const before = request.verification;
      request.verification = verification;
      if (verification.passed) {
        say('Verified. You can now enter the credential.');
        return renderSteps(request, true);
      }
      const progressed = (verification.challenge_passed && !before.challenge_passed) || (verification.email_passed && !before.email_passed);
      renderSteps(request, false);
      if (progressed) {
        say('That code was accepted. Now enter the other code.');
        document.querySelector<HTMLInputElement>('#verify-form input')?.focus();
        return;
      }
      const wrong = [...(challengeCode && !verification.challenge_passed ? ['challenge-code'] : []), ...(emailCode && !verification.email_passed ? ['email-code'] : [])];
      refuseCodes(wrong, `That code was not right. ${attemptsText(verification)}`.trim());
    });
  });

  return h('section', { id: 'verify-step', 'aria-labelledby': 'verify-heading' }, h('h2', { id: 'verify-heading' }, 'Confirm it is you'), form);
};

// --- The credential ----------------------------------------------------------------------------

const formatBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;

const credentialStep = (request: SubjectRequest) => {
  const credential = h('input', { id: 'credential', name: 'credential', type: 'password', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', required: true });
  const toggle = h('button', { id: 'toggle-credential', type: 'button', class: 'secondary', 'aria-controls': 'credential', 'aria-pressed': 'false' }, 'Show');
  toggle.addEventListener('click', () => {
    const showing = credential.type === 'text';
    credential.type = showing ? 'password' : 'text';
    toggle.textContent = showing ? 'Show' : 'Hide';
    toggle.setAttribute('aria-pressed', String(!showing));
  });
  const note = h('textarea', { id: 'note', name: 'note', rows: 3, maxlength: 2000, spellcheck: 'false' });
  const files = request.allow_attachments ? h('input', { id: 'attachments', name: 'attachments', type: 'file', multiple: true }) : null;
  const submit = h('button', { id: 'submit', type: 'submit' }, 'Encrypt and send');

  const form = h(
    'form',
    { id: 'credential-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'credential' }, 'Password or secret'), h('div', { class: 'with-button' }, credential, toggle)),
    field('Note (optional)', note, 'For example the user name or what the credential is for. It is encrypted too.'),
    files
      ? field('Files (optional)', files, `Up to ${request.limits.attachments} files, each at most ${formatBytes(request.limits.attachment_bytes)}. Their contents and names are encrypted too.`)
      : null,
    encryptionNotice(Boolean(files)),
    submit,
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!credential.value) return refuseField(credential, 'Enter the password or secret first.');
    const chosen = files ? Array.from(files.files ?? []) : [];
    if (chosen.length > request.limits.attachments) return sayError(`Attach at most ${request.limits.attachments} files.`);
    const tooBig = chosen.find((file) => file.size > request.limits.attachment_bytes);
    if (tooBig) return sayError(`${tooBig.name} is larger than ${formatBytes(request.limits.attachment_bytes)}.`);

    void busy(submit, async () => {
      say('Encrypting in your browser…');
      let sealed: { envelope: unknown; attachments: SealedAttachment[] };
      try {
        const { envelope, contentKey } = await seal(JSON.stringify({ credential: credential.value, note: note.value }), state.recipients, request.id);
        const attachments: SealedAttachment[] = [];
        for (const file of chosen) {
          const bytes = new Uint8Array(await file.arrayBuffer());
          attachments.push(await sealAttachment(contentKey, { name: file.name, type: file.type, bytes }, request.id));
        }
        sealed = { envelope, attachments };
      } catch {
        return sayError('Your browser could not encrypt the credential. Try an up-to-date browser.');
      }
      try {
        say('Sending…');
        const answer = await linkCall<{ status: string; record_expires_at: string | null }>('POST', '/subject/submit', sealed);
        credential.value = '';
        note.value = '';
        showSubmitted(request, answer.record_expires_at);
      } catch (error) {
        handleFailure(error);
      }
    });
  });

  return h(
    'section',
    { id: 'credential-step', 'aria-labelledby': 'credential-heading' },
    h('h2', { id: 'credential-heading' }, 'Enter the credential'),
    h('p', {}, `It is encrypted in this browser before it is sent. Only ${state.recipients.map((r) => r.label).join(', ')} can open it; the service itself cannot read it.`),
    form,
  );
};

const showSubmitted = (request: SubjectRequest, recordExpiresAt: string | null) => {
  const heading = h('h2', { id: 'submitted-heading' }, 'Sent securely');
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'submitted', 'aria-labelledby': 'submitted-heading' },
      heading,
      h('p', {}, `The credential was encrypted in your browser and sent. Only ${state.recipients.map((r) => r.label).join(', ')} can open it.`),
      recordExpiresAt ? h('p', {}, `It will be destroyed by ${formatTime(recordExpiresAt)} at the latest.`) : null,
      h('p', {}, 'There is nothing more to do. You can close this page.'),
    ),
  );
  say(`Sent. The credential for ${request.organisation.name} was encrypted and delivered.`);
  focusHeading(heading);
};

// --- Report ------------------------------------------------------------------------------------

const reportSection = () => {
  const reason = h('textarea', { id: 'report-reason', name: 'reason', rows: 2, maxlength: 500 });
  const button = h('button', { id: 'report', type: 'submit', class: 'secondary' }, 'Report this request');
  const form = h('form', { id: 'report-form' }, field('What looks wrong? (optional)', reason), button);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(button, async () => {
      try {
        const text = reason.value.trim();
        await linkCall('POST', '/subject/report', text ? { reason: text } : {});
        replaceChildren(form, h('p', { class: 'ok' }, 'Thank you. The request was reported. Do not send anything until you have checked with the person who asked.'));
        say('The request was reported.');
      } catch (error) {
        handleFailure(error);
      }
    });
  });
  return h(
    'section',
    { id: 'report-section', class: 'report', 'aria-labelledby': 'report-heading' },
    h('h2', { id: 'report-heading' }, 'Not expecting this?'),
    h('p', {}, 'If you did not expect this request, or anything about it looks wrong, do not send anything and report it.'),
    form,
  );
};

// --- The page ----------------------------------------------------------------------------------

const renderSteps = (request: SubjectRequest, focus: boolean) => {
  const step = request.verification.passed ? credentialStep(request) : verifyStep(request);
  replaceChildren(content(), describe(request), step, reportSection());
  if (focus) focusHeading(step.querySelector('h2')!);
};

/** The served recipients, their fingerprints recomputed here from the public keys. */
const checkedRecipients = async (request: SubjectRequest, commitment: string): Promise<Recipient[] | null> => {
  const served = request.recipients.map((r) => ({ membershipId: r.membership_id, publicKey: r.public_key, label: r.label }));
  if (served.length === 0) return null;
  let computed: string;
  try {
    computed = await commitmentOf(served);
  } catch {
    return null; // a public key that does not even import is a mismatch too
  }
  if (computed !== commitment) return null;
  return Promise.all(served.map(async (r) => ({ ...r, fingerprint: await fingerprintOf(r.publicKey) })));
};

const sameRecipients = (a: Recipient[], b: Recipient[]) =>
  a.length === b.length && a.every((r, i) => r.membershipId === b[i].membershipId && r.fingerprint === b[i].fingerprint);

const main = async () => {
  clearMessages();
  state.token = tokenFromPath(location.pathname);
  if (!state.token) return showInvalid();
  const commitment = commitmentFromFragment(location.hash);

  let request: SubjectRequest;
  try {
    request = await linkCall<SubjectRequest>('GET', '/subject/request');
  } catch (error) {
    return handleFailure(error);
  }
  if (!commitment) return showRefusal(true);
  const recipients = await checkedRecipients(request, commitment);
  if (!recipients) return showRefusal(false);
  state.recipients = recipients;

  try {
    request = await linkCall<SubjectRequest>('POST', '/subject/open');
  } catch (error) {
    return handleFailure(error);
  }
  // The answer to open is checked as well: the envelope is sealed only to keys the fragment vouches for.
  const again = await checkedRecipients(request, commitment);
  if (!again || !sameRecipients(again, recipients)) return showRefusal(false);
  state.request = request;
  renderSteps(request, false);
  if (request.link_expires_at) watchLinkExpiry(request.link_expires_at);
};

/** Warns before the link expires, and ends the page once the service says it is closed. */
const watchLinkExpiry = (expiresAt: string) =>
  watchExpiry({
    expiresAt,
    active: () => document.getElementById('verify-step') !== null || document.getElementById('credential-step') !== null,
    show: (text) => {
      byId('expiry-warning').textContent = text;
    },
    askService: async () => {
      try {
        await linkCall('GET', '/subject/request');
      } catch (error) {
        // Only the service's word that the link is gone ends the page; a dropped connection does not.
        if (error instanceof ApiFailure && (error.status === 404 || error.status === 410)) handleFailure(error);
      }
    },
    formatTime: (iso) => formatTime(iso),
  });

// A link pasted over this one that differs only after the "#" does not reload the page: start again.
window.addEventListener('hashchange', () => location.reload());
main().catch(() => sayError('This page could not load. Reload it to try again.'));
