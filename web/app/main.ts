/// <reference lib="dom" />
/**
 * The member application: one page served at /app and /app/* (docs/web-api.md), routed by path
 * with history.pushState. Credentials are opened only here, with the private key this browser
 * keeps in IndexedDB (web/app/keystore.ts); the service never sees a private key or a plaintext.
 *
 * Routes: /app/sign-in (also the emailed link /app/sign-in#token=…), /app and /app/requests (my
 * requests), /app/requests/<id> (detail, audit trail, reveal, complete), /app/key (set up or
 * import my key), /app/members (owners and admins: approve replaced keys), /app/shares… (shares,
 * web/app/pages/shares.ts), /app/verify (certificates, also signed out: web/app/pages/verify.ts).
 *
 * Stable hooks for automated tests:
 *   #status, #error                     live regions (role="status" / role="alert")
 *   #nav, #sign-out                     navigation and sign-out (once signed in)
 *   sign-in:   #sign-in-form #email #sign-in; after sending: #check-email
 *   key:       #key-status; set-up form #passphrase #passphrase-confirm #create-key;
 *              after set-up #download-backup (a Blob link) and #backup-json (the backup text);
 *              import form #import-file #import-backup #import-passphrase #import-key;
 *              #register-key when this browser's key is not the registered one
 *   requests:  #requests (table), each row's link a[data-request-id="<id>"]
 *   detail:    #request-facts, #audit (list, li[data-type]), #reveal, #complete, #certificate (ended);
 *              after reveal #revealed: #revealed-credential #toggle-credential #copy-credential
 *              #revealed-note, #revealed-attachments a[download]
 *   members:   #members (table), #approve-<membershipId>
 */
import { open, openAttachment, type Envelope, type SealedAttachment } from '../crypto/envelope.ts';
import { exportBackup, fingerprintOf, generateIdentityPair, importBackup, lockPrivateKey, type KeyBackup } from '../crypto/identity.ts';
import { ApiFailure, call, messageOf } from '../shared/api.ts';
import { busy, byId, clearMessages, credentialField, facts, field, focusHeading, formatTime, h, replaceChildren, say, sayError } from '../shared/dom.ts';
import { certificateSection } from './certificate-download.ts';
import type { AppContext } from './context.ts';
import { loadKey, saveKey, type StoredKey } from './keystore.ts';
import { newSharePage, shareDetailPage, sharesPage } from './pages/shares.ts';
import { verifyPage } from './pages/verify.ts';

// --- Shapes of the answers ---------------------------------------------------------------------

interface IdentityKey {
  fingerprint: string;
  state: string;
}

interface Member {
  membership_id: string;
  name: string | null;
  email: string | null;
  role: string;
  identity_key: IdentityKey | null;
}

interface Me {
  member: Member;
  organisation: { id: string; name: string };
  csrf_token: string;
}

interface RequestView {
  id: string;
  status: string;
  client: { id: string; name: string } | null;
  subject: { name: string; email: string | null; phone: string | null };
  ticket: { ref: string | null; url: string | null; status: string | null } | null;
  justification: string;
  requester: { membership_id: string; name: string | null; email: string | null };
  recipients: Array<{ label: string; membership_id: string | null }>;
  ttl_minutes: number;
  verification_mode: string;
  allow_attachments: boolean;
  attachments_count: number;
  reveal_count: number;
  purge_reason: string | null;
  revoked_reason: string | null;
  created_at: string;
  link_expires_at: string | null;
  opened_at: string | null;
  submitted_at: string | null;
  record_expires_at: string | null;
  last_revealed_at: string | null;
  purge_scheduled_at: string | null;
  completed_at: string | null;
  revoked_at: string | null;
}

interface AuditEntry {
  seq: number;
  type: string;
  occurred_at: string;
  actor: { type: string; label: string | null } | null;
  details: Record<string, unknown> | null;
}

interface Revealed {
  credential: string;
  note: string;
  files: Array<{ name: string; url: string; size: number }>;
}

// --- Session -----------------------------------------------------------------------------------

const session: { me: Me | null } = { me: null };

const get = <T>(path: string) => call<T>('GET', path);
const post = <T>(path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<T>('POST', path, { body, headers: { ...headers, ...(session.me ? { 'X-CSRF-Token': session.me.csrf_token } : {}) } });

const refreshMe = async () => {
  session.me = await get<Me>('/app/api/me');
  return session.me;
};

const isAdmin = () => session.me?.member.role === 'owner' || session.me?.member.role === 'admin';

// --- Routing -----------------------------------------------------------------------------------

const content = () => byId('content');

/** Object URLs of opened attachments and backups; revoked whenever the page changes. */
let objectUrls: string[] = [];
const objectUrl = (blob: Blob) => {
  const url = URL.createObjectURL(blob);
  objectUrls.push(url);
  return url;
};

const navigate = (path: string, options: { replace?: boolean; keepMessages?: boolean; focus?: boolean } = {}) => {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  void render({ focus: options.focus ?? true, keepMessages: options.keepMessages });
};

const link = (path: string, text: string, attributes: Record<string, string> = {}) => h('a', { href: path, ...attributes }, text);

document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || anchor.hasAttribute('download') || anchor.target) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/app')) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', () => void render({ focus: true }));

type Page = (match: RegExpExecArray) => Promise<HTMLElement>;

const ROUTES: Array<[RegExp, Page, string]> = [
  [/^\/app\/?$/, () => requestsPage(), 'requests'],
  [/^\/app\/requests\/?$/, () => requestsPage(), 'requests'],
  [/^\/app\/requests\/([0-9a-z]{26})\/?$/, (match) => detailPage(match[1]), 'requests'],
  [/^\/app\/key\/?$/, () => keyPage(), 'key'],
  [/^\/app\/members\/?$/, () => membersPage(), 'members'],
  [/^\/app\/shares\/?$/, () => sharesPage(app), 'shares'],
  [/^\/app\/shares\/new\/?$/, () => newSharePage(app), 'shares'],
  [/^\/app\/shares\/([0-9a-z]{26})\/?$/, (match) => shareDetailPage(app, match[1]), 'shares'],
  [/^\/app\/verify\/?$/, () => verifyPage(app), 'verify'],
];
/** Pages that also work signed out. */
const PUBLIC_PAGE = /^\/app\/verify\/?$/;

/** What the page modules (web/app/pages/) get: calls, navigation, re-rendering. */
const app: AppContext = {
  get,
  post,
  navigate: (path, options) => navigate(path, options),
  render: (options) => render(options),
  member: () => session.me?.member ?? null,
};

let renderCount = 0;

const render = async (options: { focus?: boolean; keepMessages?: boolean } = {}) => {
  const mine = ++renderCount;
  for (const url of objectUrls) URL.revokeObjectURL(url);
  objectUrls = [];
  if (!options.keepMessages) clearMessages();

  if (/^\/app\/sign-in\/?$/.test(location.pathname)) {
    renderNav(null);
    forgetRevealed(null);
    const heading = await signInPage();
    if (heading && options.focus) focusHeading(heading);
    return;
  }
  try {
    if (!session.me) await refreshMe();
  } catch (error) {
    const signedOut = error instanceof ApiFailure && error.status === 401;
    if (signedOut && !PUBLIC_PAGE.test(location.pathname)) return navigate('/app/sign-in', { replace: true, keepMessages: true, focus: !!options.focus });
    if (!signedOut) {
      replaceChildren(content(), h('h1', {}, 'Credential Handoff'), h('p', {}, 'The service could not be reached.'));
      return sayError(messageOf(error));
    }
  }
  const route = ROUTES.map(([pattern, page, section]) => [pattern.exec(location.pathname), page, section] as const).find(([match]) => match);
  forgetRevealed(/^\/app\/requests\/([0-9a-z]{26})\/?$/.exec(location.pathname)?.[1] ?? null);
  renderNav(route?.[2] ?? null);
  try {
    const page = route ? await route[1](route[0]!) : notFoundPage();
    if (mine !== renderCount) return; // a later navigation won
    replaceChildren(content(), page);
    const heading = page.querySelector('h1');
    if (heading) {
      document.title = `${heading.textContent} · Credential Handoff`;
      if (options.focus) focusHeading(heading);
    }
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) {
      session.me = null;
      sayError('Your session has ended. Sign in again.');
      return navigate('/app/sign-in', { replace: true, keepMessages: true });
    }
    if (mine !== renderCount) return;
    replaceChildren(content(), h('h1', {}, 'Something went wrong'), h('p', {}, link('/app/requests', 'Back to my requests')));
    sayError(messageOf(error));
  }
};

const renderNav = (current: string | null) => {
  const nav = byId('nav');
  if (!session.me) {
    nav.hidden = true;
    nav.replaceChildren();
    return;
  }
  const item = (path: string, text: string, section: string) =>
    h('li', {}, h('a', { href: path, 'aria-current': current === section ? 'page' : null }, text));
  const signOut = h('button', { id: 'sign-out', type: 'button', class: 'link-button' }, 'Sign out');
  signOut.addEventListener('click', () =>
    busy(signOut, async () => {
      try {
        await post('/app/api/sign-out');
      } catch (error) {
        if (!(error instanceof ApiFailure && error.status === 401)) return sayError(messageOf(error));
      }
      session.me = null;
      navigate('/app/sign-in', { replace: true });
      say('You are signed out.');
    }),
  );
  replaceChildren(
    nav,
    h(
      'ul',
      {},
      item('/app/requests', 'My requests', 'requests'),
      item('/app/key', 'My key', 'key'),
      item('/app/shares', 'Shares', 'shares'),
      item('/app/verify', 'Verify', 'verify'),
      isAdmin() ? item('/app/members', 'Members', 'members') : null,
      h('li', { class: 'who' }, `${session.me.member.name ?? session.me.member.email ?? ''} · ${session.me.organisation.name}`),
      h('li', {}, signOut),
    ),
  );
  nav.hidden = false;
};

const notFoundPage = () => h('div', {}, h('h1', {}, 'Page not found'), h('p', {}, link('/app/requests', 'Go to my requests')));

// --- Sign-in -----------------------------------------------------------------------------------

const signInPage = async (): Promise<HTMLElement | null> => {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = fragment.get('token');
  if (token) {
    history.replaceState(null, '', '/app/sign-in'); // the one-time token leaves the address bar and history
    replaceChildren(content(), h('h1', {}, 'Signing you in…'));
    try {
      const answer = await post<Me>('/app/api/session', { token });
      session.me = answer;
      await refreshMe().catch(() => undefined);
      navigate('/app', { replace: true, focus: false });
      return null;
    } catch (error) {
      sayError(
        error instanceof ApiFailure && error.status !== 0
          ? 'This sign-in link is not valid any more: it may have expired or been used already. Ask for a new one below.'
          : messageOf(error),
      );
    }
  }

  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'email', required: true, spellcheck: 'false' });
  const button = h('button', { id: 'sign-in', type: 'submit' }, 'Email me a sign-in link');
  const form = h('form', { id: 'sign-in-form' }, field('Work email address', email), button);
  const heading = h('h1', {}, 'Sign in');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const address = email.value.trim();
    if (!address || !email.checkValidity()) {
      sayError('Enter your work email address.');
      email.focus();
      return;
    }
    void busy(button, async () => {
      try {
        await call('POST', '/app/api/sign-in', { body: { email: address } });
        const done = h('h2', { id: 'check-email' }, 'Check your email');
        replaceChildren(
          form,
          done,
          h('p', {}, `If ${address} belongs to a member, a sign-in link is on its way. It works once, for 15 minutes.`),
        );
        say('Check your email for a sign-in link.');
        focusHeading(done);
      } catch (error) {
        sayError(messageOf(error));
      }
    });
  });
  document.title = 'Sign in · Credential Handoff';
  replaceChildren(content(), heading, h('p', {}, 'We will email you a link that signs you in. No password needed.'), form);
  return heading;
};

// --- My key ------------------------------------------------------------------------------------

const KEY_STATES: Record<string, string> = {
  verified: 'Verified',
  replaced_pending_approval: 'Replaced; waiting for an owner or admin to approve it',
  revoked: 'Revoked',
};
const keyStateText = (key: IdentityKey | null) => (key ? (KEY_STATES[key.state] ?? key.state) : 'No key');

const fingerprintText = (fingerprint: string) => fingerprint.match(/.{1,4}/g)?.join(' ') ?? fingerprint;
const fingerprintCode = (fingerprint: string) => h('code', { class: 'fingerprint' }, fingerprintText(fingerprint));

/** The backup made in this page visit, kept so the download stays offered after re-rendering. */
let lastBackup: KeyBackup | null = null;

const registerKey = async (publicKey: string) => {
  const answer = await post<IdentityKey>('/app/api/identity-key', { public_key: publicKey });
  await refreshMe();
  return answer;
};

const keyPage = async () => {
  const me = session.me!;
  const server = me.member.identity_key;
  const local = await loadKey(me.member.membership_id).catch(() => null);
  const matches = !!local && !!server && local.fingerprint === server.fingerprint;

  const status = h(
    'section',
    { 'aria-labelledby': 'key-status-heading' },
    h('h2', { id: 'key-status-heading' }, 'Status'),
    facts('key-status', [
      ['Registered key', server ? h('span', {}, keyStateText(server), h('br'), fingerprintCode(server.fingerprint)) : 'None yet'],
      ['Key in this browser', local ? h('span', {}, matches ? 'Present, and it is the registered key' : 'Present, but not the registered key', h('br'), fingerprintCode(local.fingerprint)) : 'None'],
    ]),
  );
  if (server?.state === 'replaced_pending_approval') {
    status.append(h('p', { class: 'notice' }, 'An owner or admin must approve this key before new requests can be sealed to it. Tell them its fingerprint by phone or in person so they can check it.'));
  }
  if (local && !matches) {
    const register = h('button', { id: 'register-key', type: 'button' }, server ? "Replace the registered key with this browser's key" : "Register this browser's key");
    register.addEventListener('click', () =>
      busy(register, async () => {
        try {
          const answer = await registerKey(local.publicKey);
          say(answer.state === 'verified' ? 'Your key is registered.' : 'Your key is registered and waits for approval by an owner or admin.');
          void render({ keepMessages: true });
        } catch (error) {
          sayError(messageOf(error));
        }
      }),
    );
    status.append(register);
  }
  if (!local && server) {
    status.append(h('p', { class: 'notice' }, 'This browser does not hold your key yet, so it cannot open credentials. Import your backup below.'));
  }

  const setUp = setUpSection(!!server);
  const importing = importSection();
  return h(
    'div',
    {},
    h('h1', {}, 'My identity key'),
    h('p', {}, 'Credentials sent to you are encrypted to your key. Its private half is kept in this browser and cannot be read out of it; the service never sees it. A passphrase-protected backup lets you use it in another browser.'),
    status,
    ...(server && !local ? [importing, setUp] : [setUp, importing]),
  );
};

const setUpSection = (replacing: boolean) => {
  const passphrase = h('input', { id: 'passphrase', name: 'passphrase', type: 'password', autocomplete: 'new-password', minlength: 12, required: true });
  const confirm = h('input', { id: 'passphrase-confirm', name: 'passphrase-confirm', type: 'password', autocomplete: 'new-password', minlength: 12, required: true });
  const button = h('button', { id: 'create-key', type: 'submit' }, 'Set up my key');
  const result = h('div', { id: 'backup-result' });
  if (lastBackup) showBackup(result, lastBackup);
  const form = h(
    'form',
    { id: 'create-key-form', novalidate: true },
    replacing ? h('p', { class: 'notice' }, 'A new key replaces your registered one. An owner or admin must approve it, and credentials sealed to your old key cannot be opened with the new one.') : null,
    field('Passphrase for the backup', passphrase, 'At least 12 characters. You need it to use your key in another browser; it cannot be recovered.'),
    field('Repeat the passphrase', confirm),
    button,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (passphrase.value.length < 12) {
      sayError('The passphrase must have at least 12 characters.');
      return passphrase.focus();
    }
    if (passphrase.value !== confirm.value) {
      sayError('The two passphrases are not the same.');
      return confirm.focus();
    }
    void busy(button, async () => {
      try {
        say('Creating your key…');
        const pair = await generateIdentityPair();
        const backup = await exportBackup(pair, passphrase.value);
        const privateKey = await lockPrivateKey(pair);
        const membershipId = session.me!.member.membership_id;
        await saveKey({ membershipId, privateKey, publicKey: backup.public_key, fingerprint: backup.fingerprint, storedAt: new Date().toISOString() });
        lastBackup = backup;
        passphrase.value = '';
        confirm.value = '';
        const answer = await registerKey(backup.public_key);
        await render({ keepMessages: true });
        say(
          answer.state === 'verified'
            ? 'Your key is set up. Download the backup now and keep it somewhere safe.'
            : 'Your new key is set up and waits for approval by an owner or admin. Download the backup now.',
        );
        document.getElementById('download-backup')?.focus();
      } catch (error) {
        sayError(error instanceof ApiFailure ? messageOf(error) : 'Your browser could not create a key. Try an up-to-date browser.');
      }
    });
  });
  return h('section', { 'aria-labelledby': 'set-up-heading' }, h('h2', { id: 'set-up-heading' }, replacing ? 'Set up a new key' : 'Set up my key'), form, result);
};

const showBackup = (target: HTMLElement, backup: KeyBackup) => {
  const text = JSON.stringify(backup, null, 2);
  const url = objectUrl(new Blob([text], { type: 'application/json' }));
  replaceChildren(
    target,
    h('h3', {}, 'Your backup'),
    h('p', {}, 'Download it and keep it with your passphrase somewhere safe, such as your password manager. Without it, a new browser cannot open credentials sent to you.'),
    h('p', {}, h('a', { id: 'download-backup', href: url, download: `handoff-key-${backup.fingerprint.slice(0, 8)}.json`, class: 'button' }, 'Download the backup')),
    h('details', {}, h('summary', {}, 'Show the backup text'), h('pre', { id: 'backup-json', class: 'backup' }, text)),
  );
};

const importSection = () => {
  const file = h('input', { id: 'import-file', name: 'backup-file', type: 'file', accept: '.json,application/json' });
  const pasted = h('textarea', { id: 'import-backup', name: 'backup', rows: 4, spellcheck: 'false' });
  const passphrase = h('input', { id: 'import-passphrase', name: 'import-passphrase', type: 'password', autocomplete: 'current-password', required: true });
  const button = h('button', { id: 'import-key', type: 'submit' }, 'Import my key');
  const form = h(
    'form',
    { id: 'import-form', novalidate: true },
    field('Backup file', file),
    field('Or paste the backup text', pasted),
    field('Passphrase of the backup', passphrase),
    button,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(button, async () => {
      let backup: KeyBackup;
      try {
        const text = pasted.value.trim() || (file.files?.[0] ? await file.files[0].text() : '');
        if (!text) return sayError('Choose the backup file or paste its text.');
        backup = JSON.parse(text) as KeyBackup;
        if (backup.format !== 'handoff-identity-backup/v1' || (await fingerprintOf(backup.public_key)) !== backup.fingerprint) throw new Error('not a backup');
      } catch {
        return sayError('That is not a key backup from this service.');
      }
      if (!passphrase.value) {
        sayError('Enter the passphrase of the backup.');
        return passphrase.focus();
      }
      say('Opening the backup…');
      let restored: Awaited<ReturnType<typeof importBackup>>;
      try {
        restored = await importBackup(backup, passphrase.value);
      } catch {
        return sayError('The passphrase is wrong, or the backup is damaged.');
      }
      try {
        const me = session.me!;
        const stored: StoredKey = { membershipId: me.member.membership_id, ...restored, storedAt: new Date().toISOString() };
        await saveKey(stored);
        passphrase.value = '';
        pasted.value = '';
        let message = 'Your key is now in this browser.';
        if (me.member.identity_key?.fingerprint !== restored.fingerprint) {
          const answer = await registerKey(restored.publicKey);
          message = answer.state === 'verified' ? 'Your key is in this browser and registered.' : 'Your key is in this browser; as a replacement it waits for approval by an owner or admin.';
        }
        await render({ keepMessages: true });
        say(message);
      } catch (error) {
        sayError(messageOf(error, 'This browser could not store the key.'));
      }
    });
  });
  return h(
    'section',
    { 'aria-labelledby': 'import-heading' },
    h('h2', { id: 'import-heading' }, 'Import my key'),
    h('p', {}, 'Use the backup you downloaded when you set up your key, to open credentials in this browser.'),
    form,
  );
};

// --- My requests -------------------------------------------------------------------------------

const STATUS_TEXT: Record<string, string> = {
  pending: 'Pending',
  opened: 'Opened',
  submitted: 'Submitted',
  completed: 'Completed',
  revoked: 'Revoked',
  expired: 'Expired',
};
const statusBadge = (status: string) => h('span', { class: `badge badge-${status}` }, STATUS_TEXT[status] ?? status);

const requestsPage = async () => {
  const [{ data }, local] = await Promise.all([
    get<{ data: RequestView[] }>('/app/api/requests'),
    loadKey(session.me!.member.membership_id).catch(() => null),
  ]);
  const keyNotice =
    !local || local.fingerprint !== session.me!.member.identity_key?.fingerprint
      ? h('p', { class: 'notice' }, 'This browser cannot open credentials yet. ', link('/app/key', 'Set up or import your key'), '.')
      : null;
  const expiresAt = (request: RequestView) =>
    request.status === 'submitted' ? request.record_expires_at : ['pending', 'opened'].includes(request.status) ? request.link_expires_at : null;
  const row = (request: RequestView) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row', class: 'nowrap' }, h('a', { href: `/app/requests/${request.id}`, 'data-request-id': request.id }, request.subject.name)),
      h('td', {}, request.client?.name ?? '—'),
      h('td', {}, statusBadge(request.status)),
      h('td', { class: 'nowrap' }, formatTime(request.created_at, 'short')),
      h('td', { class: 'nowrap' }, formatTime(request.submitted_at, 'short')),
      h('td', { class: 'nowrap' }, formatTime(expiresAt(request), 'short')),
    );
  const table = h(
    'table',
    { id: 'requests' },
    h('caption', {}, 'Requests you asked for or receive, newest first'),
    h('thead', {}, h('tr', {}, ...['Subject', 'Client', 'Status', 'Created', 'Submitted', 'Expires'].map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...data.map(row)),
  );
  const body = data.length === 0 ? h('p', {}, 'No requests yet.') : h('div', { class: 'table-wrap' }, table);
  return h('div', {}, h('h1', {}, 'My requests'), keyNotice, body);
};

// --- Request detail ----------------------------------------------------------------------------

const EVENT_TEXT: Record<string, string> = {
  'request.created': 'Created',
  'request.delivered': 'Link delivered',
  'request.opened': 'Link opened by the subject',
  'request.verified': 'Subject verified',
  'request.verification_failed': 'Wrong code entered',
  'request.locked': 'Link locked',
  'request.submitted': 'Credential submitted',
  'request.revealed': 'Credential revealed',
  'request.completed': 'Completed; credential destroyed',
  'request.revoked': 'Revoked',
  'request.expired': 'Expired; material destroyed',
  'request.reported': 'Reported by the subject',
};

const VERIFICATION_TEXT: Record<string, string> = {
  none: 'None',
  challenge: 'Code given by phone or in person',
  email_otp: 'Code sent by email',
  either: 'Either code',
  both: 'Both codes',
};

const actorText = (actor: AuditEntry['actor']) => (actor ? (actor.label ? `${actor.label} (${actor.type})` : actor.type) : 'system');

const detailsText = (details: AuditEntry['details']) =>
  Object.entries(details ?? {})
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([name, value]) => `${name.replace(/_/g, ' ')}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join('; ');

/**
 * What was revealed on this visit of one request's page, with the object URLs of its opened
 * files; forgotten (and the URLs revoked) as soon as another page is shown.
 */
const revealed = new Map<string, Revealed>();
let revealedUrls: string[] = [];
const forgetRevealed = (exceptId: string | null) => {
  if (exceptId !== null && revealed.has(exceptId)) return;
  revealed.clear();
  for (const url of revealedUrls) URL.revokeObjectURL(url);
  revealedUrls = [];
};

const detailPage = async (id: string) => {
  const { request, audit } = await get<{ request: RequestView; audit: AuditEntry[] }>(`/app/api/requests/${id}`);
  const me = session.me!.member;
  const isRecipient = request.recipients.some((recipient) => recipient.membership_id === me.membership_id);

  const actions = h('div', { class: 'actions' });
  if (request.status === 'submitted' && isRecipient) {
    const reveal = h('button', { id: 'reveal', type: 'button' }, revealed.has(id) ? 'Reveal again' : 'Reveal the credential');
    reveal.addEventListener('click', () => busy(reveal, () => doReveal(request)));
    actions.append(reveal);
  }
  if (request.status === 'submitted') {
    const complete = h('button', { id: 'complete', type: 'button', class: 'danger' }, 'Complete and destroy');
    complete.addEventListener('click', () =>
      busy(complete, async () => {
        try {
          await post(`/app/api/requests/${id}/complete`);
          await render({ keepMessages: true });
          say('Completed. The stored credential and its files were destroyed.');
        } catch (error) {
          sayError(messageOf(error));
        }
      }),
    );
    actions.append(complete);
    actions.append(h('p', { class: 'hint' }, 'Completing destroys the stored credential for everyone. Do it once you have what you need.'));
  }
  if (request.status === 'submitted' && !isRecipient) {
    actions.prepend(h('p', {}, 'You are not a recipient of this request, so you cannot open its credential.'));
  }
  const ended = ['completed', 'revoked', 'expired'].includes(request.status);

  const shown = revealed.get(id);
  return h(
    'div',
    {},
    h('h1', {}, `Request for ${request.subject.name}`),
    h('p', {}, statusBadge(request.status)),
    facts('request-facts', [
      ['Subject', [request.subject.name, request.subject.email, request.subject.phone].filter(Boolean).join(' · ')],
      ['Client', request.client?.name],
      ['Requested by', request.requester.name ?? request.requester.email],
      ['Recipients', request.recipients.map((r) => r.label).join(', ')],
      ['Reason given', request.justification],
      ['Ticket', request.ticket?.ref ? `${request.ticket.ref}${request.ticket.status ? ` (${request.ticket.status})` : ''}` : null],
      ['Verification', VERIFICATION_TEXT[request.verification_mode] ?? request.verification_mode],
      ['Created', formatTime(request.created_at)],
      ['Link expires', request.link_expires_at && ['pending', 'opened'].includes(request.status) ? formatTime(request.link_expires_at) : null],
      ['Opened', request.opened_at ? formatTime(request.opened_at) : null],
      ['Submitted', request.submitted_at ? formatTime(request.submitted_at) : null],
      ['Files', request.attachments_count ? String(request.attachments_count) : null],
      ['Destroyed at the latest', request.status === 'submitted' ? formatTime(request.record_expires_at) : null],
      ['Revealed', request.reveal_count ? `${request.reveal_count} ${request.reveal_count === 1 ? 'time' : 'times'}, last ${formatTime(request.last_revealed_at)}` : null],
      ['Completed', request.completed_at ? formatTime(request.completed_at) : null],
      ['Revoked', request.revoked_at ? `${formatTime(request.revoked_at)}${request.revoked_reason ? ` (${request.revoked_reason})` : ''}` : null],
      ['Purge reason', request.purge_reason],
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
                h('strong', {}, EVENT_TEXT[entry.type] ?? entry.type),
                ` by ${actorText(entry.actor)}`,
                details ? h('span', { class: 'hint' }, ` (${details})`) : null,
              );
            }),
          ),
    ),
  );
};

const doReveal = async (request: RequestView) => {
  const membershipId = session.me!.member.membership_id;
  const key = await loadKey(membershipId).catch(() => null);
  if (!key) {
    sayError('This browser does not hold your key. Import your key on the My key page first.');
    return;
  }
  let answer: { envelope: Envelope; attachments: SealedAttachment[] };
  try {
    answer = await post(`/app/api/requests/${request.id}/reveal`);
  } catch (error) {
    return sayError(messageOf(error));
  }
  try {
    const opened = await open(answer.envelope, key.privateKey, key.fingerprint, request.id);
    const payload = JSON.parse(opened.plaintext) as { credential?: string; note?: string };
    const files: Revealed['files'] = [];
    for (const attachment of answer.attachments ?? []) {
      const file = await openAttachment(opened.contentKey, attachment, request.id);
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
  await render({ keepMessages: true });
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

// --- Members (owners and admins) ---------------------------------------------------------------

const membersPage = async () => {
  if (!isAdmin()) return h('div', {}, h('h1', {}, 'Members'), h('p', {}, 'Only owners and admins can see this page.'));
  const { data } = await get<{ data: Member[] }>('/app/api/members');
  const rows = data.map((member) => {
    const key = member.identity_key;
    let action: HTMLElement | string = '';
    if (key?.state === 'replaced_pending_approval') {
      const approve = h(
        'button',
        { id: `approve-${member.membership_id}`, type: 'button', 'aria-label': `Approve the new key of ${member.name ?? member.email ?? 'this member'}` },
        'Approve key',
      );
      approve.addEventListener('click', () =>
        busy(approve, async () => {
          try {
            await post(`/app/api/members/${member.membership_id}/approve-key`);
            await render({ keepMessages: true });
            say(`The new key of ${member.name ?? member.email} is approved.`);
          } catch (error) {
            sayError(messageOf(error));
          }
        }),
      );
      action = approve;
    }
    return h(
      'tr',
      { 'data-member-id': member.membership_id },
      h('th', { scope: 'row' }, member.name ?? '—', member.email ? h('span', { class: 'sub' }, member.email) : null),
      h('td', {}, member.role),
      h('td', {}, keyStateText(key), key ? h('span', { class: 'sub' }, fingerprintCode(key.fingerprint)) : null),
      h('td', {}, action),
    );
  });
  const table = h(
    'table',
    { id: 'members' },
    h('caption', {}, `Members of ${session.me!.organisation.name}`),
    h('thead', {}, h('tr', {}, ...['Member', 'Role', 'Key and fingerprint', 'Action'].map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...rows),
  );
  return h(
    'div',
    {},
    h('h1', {}, 'Members'),
    h('p', {}, 'A replaced key must be approved before requests are sealed to it. Before approving, check its fingerprint with the member by phone or in person.'),
    h('div', { class: 'table-wrap' }, table),
  );
};

void render();
