/// <reference lib="dom" />
/**
 * The subject's link page, served at /r/<token>#<commitment> (docs/web-api.md).
 *
 * Loading the HTML changes nothing on the server. This script reads the link token from the path
 * (sent only in the X-Link-Token header), fetches the request, recomputes the recipient
 * commitment from the served public keys and compares it with the fragment, and marks the link
 * opened (POST /subject/open). Only when they match does it ask for the verification codes and
 * offer the credential form. A passed code issues a subject pass, kept in this tab's sessionStorage
 * and sent in X-Subject-Pass: the codes count for this browser only, never for the link. The
 * credential, note and files are sealed in this browser (web/crypto/envelope.ts) to the recipients
 * whose keys were checked; the service stores only the envelope.
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
import { typedCodeOf } from './typed-code.ts';
import { keepLinesOnPaste, showToggle } from '../shared/credential-field.ts';
import { commitmentOf, fingerprintOf } from '../crypto/identity.ts';
import { ApiFailure } from '../shared/api.ts';
import { busy, byId, clearMessages, facts, field, focusHeading, formatTime, h, refuseField, replaceChildren, say, sayError } from '../shared/dom.ts';
import { content, keepPass, linkCall, loadPass, state, type Recipient, type SubjectRequest, type Verification } from './link.ts';
import { commitmentFromFragment } from './link-fragment.ts';
import { handleFailure, reportSection, showClosed, showInvalid, showRefusal, showSubmitted } from './outcomes.ts';

const tokenFromPath = (pathname: string) => {
  const match = /^\/r\/([^/]+)\/?$/.exec(pathname);
  if (!match) return '';
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return '';
  }
};


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

const typedCode = (id: string) => typedCodeOf((document.getElementById(id) as HTMLInputElement | null)?.value ?? '');

/** The code fields a 422 names (a code that is not six digits): nothing was tried, no attempt spent. */
const codeFieldsRefused = (error: ApiFailure) => {
  const errors = (error.body.errors ?? {}) as Record<string, unknown>;
  return [['challenge_code', 'challenge-code'], ['email_code', 'email-code']].filter(([name]) => name in errors).map(([, id]) => id);
};

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
      let emailedCodeExpired = false;
      try {
        verification = (await linkCall<{ verification: Verification }>('POST', '/subject/verify', body)).verification;
        keepPass(verification);
      } catch (error) {
        const carried = error instanceof ApiFailure ? (error.body.verification as Verification | undefined) : undefined;
        const notACode = error instanceof ApiFailure && error.status === 422 && !carried ? codeFieldsRefused(error) : [];
        if (notACode.length > 0) return refuseCodes(notACode, 'A code is six digits. Check what you typed and try again.');
        if (!carried) return handleFailure(error);
        verification = carried;
        // A code that passed beside one that did not still issued this browser's pass.
        keepPass(carried);
        // The emailed code was the one sent but too late: no attempt was spent, a new code helps.
        emailedCodeExpired = error instanceof ApiFailure && String((error.body.errors as Record<string, string[]> | undefined)?.email_code?.[0] ?? '').startsWith('This code has expired');
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
      const why = emailedCodeExpired && wrong.length === 1 ? 'That code has expired. Choose “Email me a code” for a new one.' : 'That code was not right.';
      refuseCodes(wrong, `${why} ${attemptsText(verification)}`.trim());
    });
  });

  return h('section', { id: 'verify-step', 'aria-labelledby': 'verify-heading' }, h('h2', { id: 'verify-heading' }, 'Confirm it is you'), form);
};

// --- The credential ----------------------------------------------------------------------------

const formatBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;

const credentialStep = (request: SubjectRequest) => {
  const input = h('input', { id: 'credential', name: 'credential', type: 'password', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', required: true });
  // A key or certificate of several lines, pasted, becomes a textarea that keeps them (shown: it cannot be masked).
  let credential: HTMLInputElement | HTMLTextAreaElement = input;
  const { button: toggle } = showToggle('toggle-credential', 'credential', (shown) => {
    input.type = shown ? 'text' : 'password';
  });
  keepLinesOnPaste(input, (area) => {
    credential = area;
    toggle.remove();
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
        // The number of files travels sealed with the credential, and each file is sealed to its place.
        const { envelope, contentKey } = await seal(JSON.stringify({ credential: credential.value, note: note.value, attachments: chosen.length }), state.recipients, request.id);
        const attachments: SealedAttachment[] = [];
        for (const [index, file] of chosen.entries()) {
          const bytes = new Uint8Array(await file.arrayBuffer());
          attachments.push(await sealAttachment(contentKey, { name: file.name, type: file.type, bytes }, request.id, { index, count: chosen.length }));
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
        // This browser's pass no longer counts (the code was passed in another one since): ask for the code again.
        if (error instanceof ApiFailure && error.status === 403) return askForCodeAgain(request, error.message);
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

/** The verification as the service now sees it for this browser, and the code step again with `message`. */
const askForCodeAgain = async (request: SubjectRequest, message: string) => {
  try {
    request.verification = (await linkCall<SubjectRequest>('GET', '/subject/request')).verification;
  } catch (error) {
    return handleFailure(error);
  }
  renderSteps(request, true);
  sayError(message);
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
  loadPass();
  const commitment = commitmentFromFragment(location.hash);

  let request: SubjectRequest;
  try {
    request = await linkCall<SubjectRequest>('GET', '/subject/request');
  } catch (error) {
    return handleFailure(error);
  }
  if (!commitment) return showRefusal(true);
  const recipients = await checkedRecipients(request, commitment);
  if (!recipients) {
    // Nothing is sealed, but the link was opened: the service, told so, checks the recipients'
    // keys again and flags the request for a new link when one changed (a refresh it missed),
    // so the requester hears of it rather than only this page refusing.
    await linkCall('POST', '/subject/open').catch(() => undefined);
    return showRefusal(false);
  }
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
