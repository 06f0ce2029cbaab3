/// <reference lib="dom" />
/**
 * A share's recipient page, served at /s/<token>#<key> (docs/web-api.md, Shares).
 *
 * Loading the HTML changes nothing, and neither does this script until the recipient presses
 * Open: it reads the link token from the path (sent only in the X-Share-Token header) and the
 * one-time private key from the fragment (never sent anywhere), removes the fragment from the
 * address bar, and asks the service to describe the share. Only when the key rebuilt from the
 * fragment has the fingerprint the service states does it offer Open. Opening counts one view
 * (the last allowed view destroys the ciphertext on the server); the envelope is checked to be
 * sealed to this key alone and decrypted here (web/crypto/share-key.ts).
 *
 * Stable hooks for automated tests:
 *   #status, #error      live regions (role="status" / role="alert")
 *   #share-describe      before opening: #share-summary (dl), #open
 *   #refusal             the key in the link is missing, damaged or not the share's:
 *                        [data-problem="missing" | "malformed" | "mismatch"]; nothing was opened
 *   #share-opened        after opening: #share-credential #toggle-credential #copy-credential,
 *                        #share-note, and #share-destroyed (last view) or #share-remaining
 *   #share-gone          already opened to its limit, destroyed or expired: [data-reason]
 *   #share-invalid       no such link (404)
 *   #share-unreachable   the service could not be reached: #retry
 */
import type { Envelope } from '../crypto/envelope.ts';
import { decodeShareFragment, openShare, sealedToOnly, ShareKeyError, type ShareKey, type SharePayload } from '../crypto/share-key.ts';
import { ApiFailure, call, messageOf } from '../shared/api.ts';
import { credentialField } from '../shared/credential-field.ts';
import { busy, byId, clearMessages, facts, fingerprintCode, focusHeading, formatTime, h, replaceChildren, say, sayError } from '../shared/dom.ts';

interface Described {
  status: 'active' | 'purged' | 'expired' | string;
  sealed_to_fingerprint: string;
  expires_at: string;
  views_left: number;
  from: string | null;
}

interface Opened {
  envelope: Envelope;
  share: { sealed_to_fingerprint: string; views_left: number; destroyed: boolean };
}

const content = () => byId('content');

/** The token and the fragment, read once; the fragment is dropped from the address bar at once. */
const state: { token: string; fragment: string } = { token: '', fragment: '' };

const shareCall = <T>(method: 'GET' | 'POST', path: string) => call<T>(method, path, { headers: { 'X-Share-Token': state.token } });

const tokenFromPath = (pathname: string) => {
  const match = /^\/s\/([^/]+)\/?$/.exec(pathname);
  if (!match) return '';
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return '';
  }
};

const times = (count: number) => `${count} more ${count === 1 ? 'time' : 'times'}`;

/** Replaces the page's content with one section and moves focus to its heading. */
const show = (section: HTMLElement, focus = true) => {
  replaceChildren(content(), section);
  const heading = section.querySelector('h2');
  if (heading && focus) focusHeading(heading);
};

// --- Outcomes that end the page --------------------------------------------------------------

const showInvalid = () => {
  show(
    h(
      'section',
      { id: 'share-invalid', 'aria-labelledby': 'invalid-heading' },
      h('h2', { id: 'invalid-heading' }, 'This link is not valid'),
      h('p', {}, 'Check that you opened the whole link from the message you received. If it still does not work, ask the person who sent it to share the credential again.'),
    ),
  );
  sayError('This link is not valid.');
};

const GONE_TEXT: Record<string, [string, string]> = {
  expired: ['This link has expired', 'The time allowed to open it has passed, and the service has destroyed its copy of the credential.'],
  purged: ['This credential is no longer here', 'It has already been opened as many times as allowed, or the sender destroyed it. The service no longer holds it.'],
};

const showGone = (reason: string, message?: string) => {
  const [heading, text] = GONE_TEXT[reason] ?? GONE_TEXT.purged;
  show(
    h(
      'section',
      { id: 'share-gone', 'data-reason': reason, 'aria-labelledby': 'gone-heading' },
      h('h2', { id: 'gone-heading' }, heading),
      h('p', {}, text),
      h('p', {}, 'If you still need it, ask the person who sent the link to share it again. If you did not open it yourself, tell them: someone else may have.'),
    ),
  );
  say(message ?? heading);
};

const REFUSALS: Record<'missing' | 'malformed' | 'mismatch' | 'reloaded', string> = {
  reloaded:
    'This page took the key (after the “#”) out of its address when the link was first opened here, so that it does not stay in your browser’s history; a reload cannot bring it back. To open the credential again, open the link from the message you received once more: it works while it has views left.',
  missing: 'This link is incomplete: the key after the “#” is missing, so the credential could not be opened. Open the whole link from the message you received; some apps cut long links short.',
  malformed: 'The key after the “#” in this link is damaged or incomplete, so the credential could not be opened. Open the whole link from the message you received; some apps cut long links short.',
  mismatch: 'The key in this link is not the key this credential was sealed to. The link may have been altered. Nothing was opened.',
};

const showRefusal = (problem: keyof typeof REFUSALS) => {
  show(
    h(
      'section',
      { id: 'refusal', class: 'refusal', 'data-problem': problem, 'aria-labelledby': 'refusal-heading' },
      h('h2', { id: 'refusal-heading' }, 'This link cannot open the credential'),
      h('p', {}, REFUSALS[problem]),
      h('p', {}, 'Ask the person who sent it for the link again, using a phone number or email address you already know.'),
    ),
  );
  sayError(
    problem === 'mismatch'
      ? 'The key in this link does not match. Nothing was opened.'
      : problem === 'reloaded'
        ? 'Open the link from your message again. Nothing was opened.'
        : 'This link is incomplete. Nothing was opened.',
  );
};

const showUnreachable = (error: unknown) => {
  const retry = h('button', { id: 'retry', type: 'button' }, 'Try again');
  retry.addEventListener('click', () => void start());
  show(
    h(
      'section',
      { id: 'share-unreachable', 'aria-labelledby': 'unreachable-heading' },
      h('h2', { id: 'unreachable-heading' }, 'The service could not be reached'),
      h('p', {}, 'Nothing was opened. Check your connection and try again.'),
      retry,
    ),
    false,
  );
  sayError(messageOf(error));
};

/** 404 and 410 end the page; anything else leaves it as it is, with the message in the alert region. */
const ended = (error: unknown) => {
  if (error instanceof ApiFailure && error.status === 404) {
    showInvalid();
    return true;
  }
  if (error instanceof ApiFailure && error.status === 410) {
    showGone(/expired/i.test(error.message) ? 'expired' : 'purged', error.message);
    return true;
  }
  return false;
};

// --- Describe, then open ------------------------------------------------------------------------

const describeSection = (described: Described, key: ShareKey) => {
  const open = h('button', { id: 'open', type: 'button' }, 'Open the credential');
  const last = described.views_left <= 1;
  open.addEventListener('click', () => busy(open, () => doOpen(key)));
  return h(
    'section',
    { id: 'share-describe', 'aria-labelledby': 'describe-heading' },
    h('h2', { id: 'describe-heading' }, 'Someone shared a credential with you'),
    facts('share-summary', [
      ['From', described.from ?? 'A member of the sending organisation'],
      ['Can be opened', times(described.views_left)],
      ['Link valid until', formatTime(described.expires_at)],
      ['Sealed to key', h('span', {}, fingerprintCode(described.sealed_to_fingerprint), h('span', { class: 'sub ok' }, 'Matches the key in this link'))],
    ]),
    h(
      'p',
      {},
      last
        ? 'It can be opened only once: after you open it, this link stops working and the service destroys its copy. Have somewhere safe to keep it, such as your password manager, before you open it.'
        : `Each opening counts. After the last of the ${described.views_left}, this link stops working and the service destroys its copy.`,
    ),
    h('p', { class: 'hint' }, 'The credential is decrypted in this browser with the key in the link; the service cannot read it. If you were not expecting it, do not open it: check with the sender first.'),
    open,
  );
};

const doOpen = async (key: ShareKey) => {
  clearMessages();
  let answer: Opened;
  try {
    say('Opening…');
    answer = await shareCall<Opened>('POST', '/share/open');
  } catch (error) {
    if (ended(error)) return;
    return sayError(
      error instanceof ApiFailure && error.status === 0
        ? 'The service could not be reached. Try again. If it then says the credential was already opened, ask the sender to share it again.'
        : messageOf(error),
    );
  }
  // The envelope must be sealed to this key and no other, as the page was told before opening.
  if (!sealedToOnly(answer.envelope, key.fingerprint) || answer.share?.sealed_to_fingerprint !== key.fingerprint) return showRefusal('mismatch');
  let payload: SharePayload;
  try {
    payload = await openShare(answer.envelope, key);
  } catch {
    return showRefusal('mismatch');
  }
  state.fragment = '';
  showOpened(payload, answer.share);
};

const showOpened = (payload: SharePayload, share: Opened['share']) => {
  const aftermath = share.destroyed
    ? h('p', { id: 'share-destroyed', class: 'notice' }, 'This was the last view: the service has destroyed its copy. Save the credential somewhere safe now; this link will not open it again.')
    : h('p', { id: 'share-remaining', class: 'notice' }, `This link can be opened ${times(share.views_left)}. The service destroys its copy after the last view, or when the link expires.`);
  show(
    h(
      'section',
      { id: 'share-opened', class: 'revealed', 'aria-labelledby': 'opened-heading' },
      h('h2', { id: 'opened-heading' }, 'The credential'),
      credentialField('share-credential', payload.credential),
      payload.note ? h('div', {}, h('h3', {}, 'Note'), h('p', { id: 'share-note', class: 'note' }, payload.note)) : null,
      aftermath,
    ),
  );
  say(share.destroyed ? 'Opened. This was the last view: the service has destroyed its copy.' : 'Opened. The credential is below; choose Show to see it.');
};

// --- The page ----------------------------------------------------------------------------------

const start = async () => {
  clearMessages();
  if (!state.token) return showInvalid();
  let described: Described;
  try {
    described = await shareCall<Described>('GET', '/share/describe');
  } catch (error) {
    if (ended(error)) return;
    return showUnreachable(error);
  }
  if (described.status !== 'active' || described.views_left < 1) return showGone(described.status);

  // No key, in a tab where this page took it out of the address: a reload, not a cut-short link.
  if (!state.fragment && keyTakenHere(state.token)) return showRefusal('reloaded');
  let key: ShareKey;
  try {
    key = await decodeShareFragment(state.fragment);
  } catch (error) {
    return showRefusal(error instanceof ShareKeyError ? error.problem : 'malformed');
  }
  if (key.fingerprint !== described.sealed_to_fingerprint) return showRefusal('mismatch');
  show(describeSection(described, key), false);
};

const TAKEN_NOTE = 'handoff.shareKeyTaken:';
const noteKeyTaken = (token: string) => {
  try {
    sessionStorage.setItem(TAKEN_NOTE + token, '1');
  } catch {
    // storage refused (a private window's settings): a reload then reads as a link cut short
  }
};
const keyTakenHere = (token: string) => {
  try {
    return sessionStorage.getItem(TAKEN_NOTE + token) === '1';
  } catch {
    return false;
  }
};

state.token = tokenFromPath(location.pathname);
state.fragment = location.hash.replace(/^#/, '');
// The key leaves the address bar (and this page's history entry) as soon as it is read; the tab
// remembers only that it did (never the key), to tell a reload from a link cut short.
if (location.hash) {
  history.replaceState(null, '', location.pathname + location.search);
  noteKeyTaken(state.token);
}
// A link pasted over this one that differs only after the "#" does not reload the page: start again.
window.addEventListener('hashchange', () => location.reload());
start().catch(() => sayError('This page could not load. Reload it to try again.'));
