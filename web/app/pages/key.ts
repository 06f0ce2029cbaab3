/// <reference lib="dom" />
/**
 * My key (/app/key): the member's identity key. Credentials are sealed to its public half; the
 * private half is made here, kept non-extractable in this browser's IndexedDB (web/app/keystore.ts)
 * and leaves it only inside a passphrase-protected backup. The page sets a key up, offers its
 * backup, imports a backup into another browser and registers this browser's key with the service.
 *
 * Stable hooks for automated tests:
 *   #key-status; set-up form #passphrase #passphrase-confirm #create-key;
 *   after set-up #download-backup (a Blob link) and #backup-json (the backup text);
 *   import form #import-file #import-backup #import-passphrase #import-key;
 *   #register-key when this browser's key is not the registered one
 */
import { BackupKeyMismatch, exportBackup, fingerprintOf, generateIdentityPair, importBackup, lockPrivateKey, type KeyBackup } from '../../crypto/identity.ts';
import { ApiFailure, messageOf } from '../../shared/api.ts';
import { busy, facts, field, fingerprintCode, h, refuseField, replaceChildren, say, sayError } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { loadKey, saveKey, type StoredKey } from '../keystore.ts';
import { keyStateText } from '../labels.ts';
import type { IdentityKey } from '../shapes.ts';

/** The backup made in this page visit, kept so the download stays offered after re-rendering. */
let lastBackup: KeyBackup | null = null;

/** Tries of one registration: a 503 (the key stored, the requests it affects not all marked yet) is sent again, as it asks. */
const REGISTER_TRIES = 3;

/**
 * Registers the key. The same key again changes nothing and finishes what a 503 left undone, so a
 * 503 is answered by sending it again after a pause: the page must not leave it to the member,
 * whose next try would make a new key (a second replacement).
 */
const registerKey = async (app: AppContext, publicKey: string): Promise<IdentityKey> => {
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await app.post<IdentityKey>('/app/api/identity-key', { public_key: publicKey });
      await app.refreshMe();
      return answer;
    } catch (error) {
      if (!(error instanceof ApiFailure) || error.status !== 503 || attempt >= REGISTER_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_500 * attempt));
    }
  }
};

export const keyPage = async (app: AppContext) => {
  const me = app.me();
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
  const refused = server?.state === 'refused';
  if (refused) {
    status.append(
      h(
        'p',
        { id: 'refused-key-notice', class: 'notice' },
        'An owner or admin refused this key, so no request is sealed to it. If you made it, ask them why; then set up a new key below (it waits for their approval, and this one cannot be offered again). If you did not make it, tell them at once: someone else may have used your session.',
      ),
    );
  }
  if (local && !matches) {
    const register = h('button', { id: 'register-key', type: 'button' }, server ? "Replace the registered key with this browser's key" : "Register this browser's key");
    register.addEventListener('click', () =>
      busy(register, async () => {
        try {
          const answer = await registerKey(app, local.publicKey);
          say(answer.state === 'verified' ? 'Your key is registered.' : 'Your key is registered and waits for approval by an owner or admin.');
          void app.render({ keepMessages: true });
        } catch (error) {
          sayError(messageOf(error));
        }
      }),
    );
    status.append(register);
  }
  // Only a verified key an operator made is replaced at once (model.ts nextKeyAwaitsApproval).
  const operatorMade = server?.made_by === 'operator' && server.state === 'verified';
  if (!local && operatorMade) {
    status.append(
      h(
        'p',
        { id: 'operator-key-notice', class: 'notice' },
        'Your registered key was made for you by an operator: its private half is in a file on their machine, not in a browser, so no browser can open what is sealed to it. Set up your own key below. It replaces that key at once, with no approval needed, and requests sent to you from then on can be opened in this browser.',
      ),
    );
  } else if (!local && server && !refused) {
    status.append(h('p', { class: 'notice' }, 'This browser does not hold your key yet, so it cannot open credentials. Import your backup below.'));
  }

  const setUp = setUpSection(app, !server ? 'first' : operatorMade ? 'operator' : 'own');
  const importing = importSection(app);
  return h(
    'div',
    {},
    h('h1', {}, 'My identity key'),
    h('p', {}, 'Credentials sent to you are encrypted to your key. Its private half is kept in this browser and cannot be read out of it; the service never sees it. A passphrase-protected backup lets you use it in another browser.'),
    status,
    ...(server && !local && !operatorMade && !refused ? [importing, setUp] : [setUp, importing]),
  );
};

/** What a new key replaces: nothing, a key an operator made (replaced at once), or the member's own (replaced after approval). */
type Replacing = 'first' | 'operator' | 'own';

const REPLACING_NOTICE: Record<Replacing, string | null> = {
  first: null,
  operator: 'Your own key replaces the key the operator made at once. Requests already sealed to that key stay sealed to it.',
  own: 'A new key replaces your registered one. An owner or admin must approve it, and credentials sealed to your old key cannot be opened with the new one.',
};

const setUpSection = (app: AppContext, replacing: Replacing) => {
  const passphrase = h('input', { id: 'passphrase', name: 'passphrase', type: 'password', autocomplete: 'new-password', minlength: 12, required: true });
  const confirm = h('input', { id: 'passphrase-confirm', name: 'passphrase-confirm', type: 'password', autocomplete: 'new-password', minlength: 12, required: true });
  const button = h('button', { id: 'create-key', type: 'submit' }, 'Set up my key');
  const result = h('div', { id: 'backup-result' });
  if (lastBackup) showBackup(app, result, lastBackup);
  const form = h(
    'form',
    { id: 'create-key-form', novalidate: true },
    REPLACING_NOTICE[replacing] ? h('p', { class: 'notice' }, REPLACING_NOTICE[replacing]) : null,
    field('Passphrase for the backup', passphrase, 'At least 12 characters. You need it to use your key in another browser; it cannot be recovered.'),
    field('Repeat the passphrase', confirm),
    button,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (passphrase.value.length < 12) {
      return refuseField(passphrase, 'The passphrase must have at least 12 characters.');
    }
    if (passphrase.value !== confirm.value) {
      return refuseField(confirm, 'The two passphrases are not the same.');
    }
    void busy(button, async () => {
      try {
        say('Creating your key…');
        const pair = await generateIdentityPair();
        const backup = await exportBackup(pair, passphrase.value);
        const privateKey = await lockPrivateKey(pair);
        const membershipId = app.me().member.membership_id;
        await saveKey({ membershipId, privateKey, publicKey: backup.public_key, fingerprint: backup.fingerprint, storedAt: new Date().toISOString() });
        lastBackup = backup;
        passphrase.value = '';
        confirm.value = '';
        const answer = await registerKey(app, backup.public_key);
        await app.render({ keepMessages: true });
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
  return h('section', { 'aria-labelledby': 'set-up-heading' }, h('h2', { id: 'set-up-heading' }, replacing === 'own' ? 'Set up a new key' : 'Set up my key'), form, result);
};

const showBackup = (app: AppContext, target: HTMLElement, backup: KeyBackup) => {
  const text = JSON.stringify(backup, null, 2);
  const url = app.objectUrl(new Blob([text], { type: 'application/json' }));
  replaceChildren(
    target,
    h('h3', {}, 'Your backup'),
    h('p', {}, 'Download it and keep it with your passphrase somewhere safe, such as your password manager. Without it, a new browser cannot open credentials sent to you.'),
    h('p', {}, h('a', { id: 'download-backup', href: url, download: `handoff-key-${backup.fingerprint.slice(0, 8)}.json`, class: 'button' }, 'Download the backup')),
    h('details', {}, h('summary', {}, 'Show the backup text'), h('pre', { id: 'backup-json', class: 'backup', tabindex: '0', role: 'region', 'aria-label': 'The backup text' }, text)),
  );
};

const importSection = (app: AppContext) => {
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
        if (!text) return refuseField(file, 'Choose the backup file or paste its text.');
        backup = JSON.parse(text) as KeyBackup;
        if (backup.format !== 'handoff-identity-backup/v1' || (await fingerprintOf(backup.public_key)) !== backup.fingerprint) throw new Error('not a backup');
      } catch {
        return sayError('That is not a key backup from this service.');
      }
      if (!passphrase.value) {
        return refuseField(passphrase, 'Enter the passphrase of the backup.');
      }
      say('Opening the backup…');
      let restored: Awaited<ReturnType<typeof importBackup>>;
      try {
        restored = await importBackup(backup, passphrase.value);
      } catch (error) {
        if (error instanceof BackupKeyMismatch) {
          return sayError('This backup was changed after it was made: its public key is not its private key’s. Do not use it; restore from another copy, or set up a new key.');
        }
        return sayError('The passphrase is wrong, or the backup is damaged.');
      }
      try {
        const me = app.me();
        const stored: StoredKey = { membershipId: me.member.membership_id, ...restored, storedAt: new Date().toISOString() };
        await saveKey(stored);
        passphrase.value = '';
        pasted.value = '';
        let message = 'Your key is now in this browser.';
        if (me.member.identity_key?.fingerprint !== restored.fingerprint) {
          const answer = await registerKey(app, restored.publicKey);
          message = answer.state === 'verified' ? 'Your key is in this browser and registered.' : 'Your key is in this browser; as a replacement it waits for approval by an owner or admin.';
        }
        await app.render({ keepMessages: true });
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
