/// <reference lib="dom" />
/**
 * API keys (/app/keys, owners and admins; docs/web-api.md, API keys): the organisation's keys for
 * the /v1 API, made and revoked here as the operator CLI makes and revokes them. A new key is shown
 * once, in a box of its own with its Copy button; the service keeps only its hash.
 *
 * Stable hooks for automated tests:
 *   list:    #api-keys (table), rows tr[data-key-id="<id>"] with .badge (the state), #no-api-keys,
 *            #revoke-<id>; then #revoke-confirmation with #confirm-revoke and #cancel-revoke
 *   create:  #api-key-form #api-key-name #api-key-scopes (fieldset, input[name="scope"][value="<scope>"])
 *            #api-key-client #api-key-allowlist #api-key-expires #create-api-key;
 *            a field's refusal in #<control id>-error
 *   created: #api-key-created #api-key-secret #copy-api-key #api-key-done;
 *            a replayed create shows #api-key-replayed
 */
import { ApiFailure, messageOf } from '../../shared/api.ts';
import { busy, clearMessages, facts, field, focusHeading, formatTime, h, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import { confirmationGroup } from '../confirm-action.ts';
import type { AppContext } from '../context.ts';
import { fieldErrors, refusedFields } from '../field-errors.ts';
import { newIdempotencyKey, shownOnce } from '../shown-once.ts';
import { maxChars } from '../../shared/max-chars.ts';

interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  client: { id: string; name: string | null } | null;
  allowlist: string[];
  expires_at: string | null;
  revoked_at: string | null;
  /** Recorded to the hour: a busy key is not written on every call. */
  last_used_at: string | null;
  created_at: string;
  state: 'active' | 'revoked' | 'expired';
}

interface KeyList {
  data: ApiKeyView[];
  scopes: string[];
  clients: Array<{ id: string; name: string }>;
  api_access: boolean;
}

interface Created {
  api_key: ApiKeyView;
  secret: string | null;
}

/** What each scope lets a key do (SPEC.md, Authentication); a scope the page does not know is shown by its name. */
const SCOPE_TEXT: Record<string, string> = {
  'requests:read': 'read requests',
  'requests:write': 'create, revoke and complete requests',
  'tickets:write': 'mark ticket statuses',
  'events:read': 'read the event feed and custody certificates',
  'webhooks:write': 'manage webhook subscriptions',
};
const STATE_TEXT: Record<string, string> = { active: 'Active', revoked: 'Revoked', expired: 'Expired' };

const clientText = (key: ApiKeyView) => (key.client ? (key.client.name ?? key.client.id) : 'All clients');
const lines = (values: string[], empty: string) =>
  values.length ? h('ul', { class: 'plain-list' }, ...values.map((value) => h('li', {}, h('code', {}, value)))) : empty;
const shownPrefix = (key: ApiKeyView) => h('code', {}, `${key.prefix}…`);
/** When it was revoked, when it expired or expires, or that it never does. */
const stateDetail = (key: ApiKeyView) => {
  if (key.revoked_at) return `Revoked ${formatTime(key.revoked_at, 'short')}`;
  if (!key.expires_at) return 'Does not expire';
  return `${key.state === 'expired' ? 'Expired' : 'Expires'} ${formatTime(key.expires_at, 'short')}`;
};

export const apiKeysPage = async (app: AppContext) => {
  if (!app.isAdmin()) return h('div', {}, h('h1', {}, 'API keys'), h('p', {}, 'Only owners and admins can see this page.'));
  const list = await app.get<KeyList>('/app/api/keys');

  const listArea = h('div', { id: 'api-keys-area' });
  const showList = (current: KeyList) => {
    replaceChildren(listArea, ...listSection(app, current));
  };
  showList(list);
  /** After a create: the list again, with the new key in it (a failure leaves the list as it was). */
  const refreshList = () => app.get<KeyList>('/app/api/keys').then(showList, () => undefined);

  return h(
    'div',
    {},
    h('h1', {}, 'API keys'),
    h('p', {}, 'Keys let your helpdesk and other systems call the API (send one as Authorization: Bearer <key>). Give each system its own key with only the scopes it needs, and revoke a key as soon as it is no longer used or may have leaked.'),
    list.api_access ? null : h('p', { class: 'notice' }, 'Your organisation’s plan does not include API access: calls with these keys are refused until the plan is upgraded.'),
    listArea,
    createSection(app, list, refreshList),
  );
};

// --- The list and its revoke confirmation --------------------------------------------------------

const listSection = (app: AppContext, list: KeyList) => {
  if (list.data.length === 0) return [h('h2', {}, 'Keys'), h('p', { id: 'no-api-keys' }, 'No keys yet. Create one below.')];

  const { group: confirmation, open } = confirmationGroup('revoke');
  const ask = (key: ApiKeyView, button: HTMLButtonElement) =>
    open(button, {
      question: `Revoke the key “${key.name}” (${key.prefix}…)? Every call with it is refused from that moment. This cannot be undone.`,
      confirmLabel: 'Yes, revoke it',
      onConfirm: (yes) => revoke(app, key, yes),
    });

  const row = (key: ApiKeyView) => {
    let action: HTMLElement | string = '';
    if (key.state !== 'revoked') {
      const button = h('button', { id: `revoke-${key.id}`, type: 'button', class: 'secondary', 'aria-label': `Revoke the key ${key.name}`, 'aria-expanded': 'false', 'aria-controls': 'revoke-confirmation' }, 'Revoke');
      button.addEventListener('click', () => ask(key, button));
      action = button;
    }
    return h(
      'tr',
      { 'data-key-id': key.id },
      h('th', { scope: 'row', class: 'key-cell' }, key.name, h('span', { class: 'sub' }, shownPrefix(key)), h('span', { class: 'sub' }, `Created ${formatTime(key.created_at, 'short')}`)),
      h('td', {}, lines(key.scopes, '—')),
      h('td', {}, clientText(key)),
      h('td', { class: 'allowlist' }, lines(key.allowlist, 'Any address')),
      h('td', { class: 'nowrap' }, ...lastUsed(key.last_used_at)),
      h('td', {}, h('span', { class: `badge badge-${key.state}` }, STATE_TEXT[key.state] ?? key.state), h('span', { class: 'sub' }, stateDetail(key))),
      h('td', {}, action),
    );
  };
  const table = h(
    'table',
    { id: 'api-keys' },
    h('caption', {}, `API keys of ${app.me().organisation.name}, newest first`),
    h('thead', {}, h('tr', {}, ...['Key', 'Scopes', 'Client', 'IP allowlist', 'Last used', 'State and expiry', 'Action'].map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...list.data.map(row)),
  );
  return [h('h2', {}, 'Keys'), tableWrap(table), confirmation];
};

const revoke = (app: AppContext, key: ApiKeyView, button: HTMLButtonElement) =>
  busy(button, async () => {
    try {
      await app.post(`/app/api/keys/${key.id}/revoke`);
      await app.render({ keepMessages: true, focus: true });
      say(`The key “${key.name}” is revoked: every call with it is refused from now on.`);
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 409) {
        await app.render({ keepMessages: true, focus: true });
        return sayError('This key had already been revoked.');
      }
      sayError(messageOf(error));
    }
  });

// --- Create ---------------------------------------------------------------------------------------

/** The body's fields and the control each one's refusal is shown at. */
const FIELD_CONTROLS: Record<string, string> = {
  name: 'api-key-name',
  scopes: 'api-key-scopes',
  client_id: 'api-key-client',
  allowlist: 'api-key-allowlist',
  expires_at: 'api-key-expires',
};

/** The end of a chosen day (yyyy-mm-dd), in this browser's time zone, as an instant. */
const endOfDay = (date: string) => {
  const [year, month, day] = date.split('-').map(Number);
  return new Date(year!, month! - 1, day!, 23, 59, 59, 999).toISOString();
};
const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

const createSection = (app: AppContext, list: KeyList, refreshList: () => Promise<void>) => {
  const name = h('input', { id: 'api-key-name', name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const scopeBoxes = list.scopes.map((scope) => {
    const id = `scope-${scope.replace(/[^a-z0-9]+/g, '-')}`;
    const box = h('input', { id, name: 'scope', type: 'checkbox', value: scope });
    return { box, row: h('div', { class: 'check' }, box, h('label', { for: id }, h('code', {}, scope), SCOPE_TEXT[scope] ? ` — ${SCOPE_TEXT[scope]}` : '')) };
  });
  const scopes = h(
    'fieldset',
    { id: 'api-key-scopes', 'aria-describedby': 'api-key-scopes-hint' },
    h('legend', {}, 'Scopes'),
    h('p', { class: 'hint', id: 'api-key-scopes-hint' }, 'What the key may do; choose at least one. Every key may call GET /ping and POST /generate.'),
    ...scopeBoxes.map((s) => s.row),
  );
  const client = h(
    'select',
    { id: 'api-key-client', name: 'client_id' },
    h('option', { value: '' }, 'All clients (the whole organisation)'),
    ...list.clients.map((c) => h('option', { value: c.id }, c.name)),
  );
  const allowlist = h('textarea', { id: 'api-key-allowlist', name: 'allowlist', rows: 3, spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off' });
  const expires = h('input', { id: 'api-key-expires', name: 'expires_at', type: 'date', min: today() });
  const submit = h('button', { id: 'create-api-key', type: 'submit' }, 'Create the key');

  const form = h(
    'form',
    { id: 'api-key-form', novalidate: true },
    field('Name', name, 'For your list and the audit log, for example “Zendesk integration”.'),
    scopes,
    field('Client', client, 'A key for one client sees and creates that client’s requests only.'),
    field('IP allowlist (optional)', allowlist, 'One address or CIDR block per line, for example 203.0.113.7 or 198.51.100.0/24. Calls from anywhere else are refused. Empty: any address.'),
    field('Expires (optional)', expires, 'The key stops working at the end of this day, your time. Empty: it does not expire.'),
    submit,
  );

  // Each field's refusal below it, tied to its control (aria-describedby, aria-invalid).
  const refusals = fieldErrors(form, FIELD_CONTROLS);

  const bodyOf = () => ({
    name: name.value.trim(),
    scopes: scopeBoxes.filter((s) => s.box.checked).map((s) => s.box.value),
    client_id: client.value || null,
    allowlist: allowlist.value.split(/\r?\n/).map((line) => line.trim()).filter(Boolean),
    expires_at: expires.value ? endOfDay(expires.value) : null,
  });

  /** The last body sent and its Idempotency-Key: the same body again reuses the key, so a retry cannot create two keys. */
  let lastAttempt: { key: string; body: string } | null = null;
  const section = h('section', { id: 'api-key-create', 'aria-labelledby': 'create-heading' }, h('h2', { id: 'create-heading' }, 'Create a key'), form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    const body = bodyOf();
    const local: Record<string, string[]> = {};
    if (!body.name) local.name = ['Enter a name.'];
    if (body.scopes.length === 0) local.scopes = ['Choose at least one scope.'];
    if (expires.validity.badInput) local.expires_at = ['Enter a whole date, or leave it empty.'];
    if (Object.keys(local).length > 0) return refusals.show(local);
    refusals.clear();
    void busy(submit, async () => {
      const text = JSON.stringify(body);
      if (lastAttempt?.body !== text) lastAttempt = { key: newIdempotencyKey(), body: text };
      let created: Created;
      try {
        created = await app.post<Created>('/app/api/keys', body, { 'Idempotency-Key': lastAttempt.key });
      } catch (error) {
        const errors = refusedFields(error);
        return errors ? refusals.show(errors) : sayError(messageOf(error));
      }
      const result = created.secret ? createdSection(app, created.api_key, created.secret) : replayedSection(app);
      replaceChildren(section, result);
      focusHeading(result.querySelector('h2')!);
      say(created.secret ? 'The key is ready. Copy it now: it is shown only once.' : 'This key was already created.');
      await refreshList();
    });
  });
  return section;
};

const doneButton = (app: AppContext) => {
  const done = h('button', { id: 'api-key-done', type: 'button', class: 'secondary' }, 'Done: create another key or go back to the list');
  // Rendering the page again drops the key from it for good.
  done.addEventListener('click', () => void app.render({ focus: true }));
  return done;
};

const createdSection = (app: AppContext, key: ApiKeyView, secret: string) =>
  h(
    'div',
    { id: 'api-key-created' },
    h('h2', { id: 'created-heading' }, `Your new key “${key.name}”`),
    h('p', { class: 'notice' }, h('strong', {}, 'Copy it now: it is shown only this once. '), 'The service keeps only a hash of it, so nobody can show it again; a key you lose is revoked and replaced.'),
    shownOnce({ id: 'api-key-secret', label: 'The API key', value: secret, copyId: 'copy-api-key', copyText: 'Copy the key', copied: 'The key is copied. Store it where the integration keeps its secrets, then clear your clipboard.' }),
    facts('api-key-created-facts', [
      ['Scopes', key.scopes.join(', ')],
      ['Client', clientText(key)],
      ['IP allowlist', key.allowlist.length ? key.allowlist.join(', ') : 'Any address'],
      ['Expires', key.expires_at ? formatTime(key.expires_at) : 'Never'],
    ]),
    h('p', {}, doneButton(app)),
  );

const replayedSection = (app: AppContext) =>
  h(
    'div',
    { id: 'api-key-replayed' },
    h('h2', { id: 'replayed-heading' }, 'This key was already created'),
    h('p', {}, 'Your first attempt reached the service, but its answer did not reach this page, and a key cannot be shown a second time. Revoke that key in the list and create a new one.'),
    h('p', {}, doneButton(app)),
  );

/**
 * The recorded use is the first in its hour (LAST_USE_PRECISION_MS): later calls within the hour
 * are not written, so the cell says the key was last used then or up to an hour later, not at
 * that minute.
 */
export const lastUsed = (lastUsedAt: string | null) =>
  lastUsedAt ? [formatTime(lastUsedAt, 'short'), h('span', { class: 'sub' }, 'or up to an hour later')] : ['Never'];
