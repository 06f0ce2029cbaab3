/// <reference lib="dom" />
/**
 * The settings forms of an integration's page (pages/integration-detail.ts): general settings,
 * the mapping of a sender's body, the status map and the check of posts. Each form sends only its
 * own part to POST /app/api/integrations/<id>, which applies it as the operator's set-integration
 * does; a refusal is shown under the field it names. A shared header value or signing secret is
 * write-only: the page only ever learns whether one is set.
 *
 * Stable hooks for automated tests:
 *   #settings-form #settings-name #settings-recipe #settings-default-preset (or, on a plan without
 *   presets, #settings-preset-plan-note) #settings-rate-limit #save-settings
 *   #mapping-form #ticket-id-paths #status-paths, one #field-<name> per trigger field, #save-mapping
 *   #status-map-form, its list of words as integration-status-words.ts gives it, #status-map-changes #save-status-map
 *   #auth-form #auth-mode #auth-header-name #auth-secret #save-auth
 */
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, h, say, sayError } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldErrors, refusedFields } from '../field-errors.ts';
import { presetsNotIncluded } from '../plan-notes.ts';
import { AUTH_TEXT, type AuthMode, type Choices, type IntegrationView } from './integrations.ts';
import { statusWordsTable } from './integration-status-words.ts';
import { maxChars } from '../../shared/max-chars.ts';

const AUTH_MODES = Object.keys(AUTH_TEXT) as AuthMode[];

/** A list of dotted paths as one line: alternatives by commas, the first present in a post wins. */
const pathsText = (paths: readonly string[] | undefined) => (paths ?? []).join(', ');
const pathsOf = (text: string) => text.split(',').map((path) => path.trim()).filter(Boolean);

/**
 * A settings form: on submit, `bodyOf` (or the refusals it finds itself) is POSTed; then the page
 * is shown again with the change, the live region saying `done`.
 */
const savingForm = (
  app: AppContext,
  integrationId: string,
  form: HTMLFormElement,
  controls: Record<string, string>,
  bodyOf: () => Record<string, unknown> | { refused: Record<string, string[]> },
  done: string,
) => {
  const refusals = fieldErrors(form, controls);
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    refusals.clear();
    const body = bodyOf();
    if ('refused' in body) return refusals.show(body.refused as Record<string, string[]>);
    void busy(submit, async () => {
      try {
        await app.post(`/app/api/integrations/${integrationId}`, body);
      } catch (error) {
        const errors = refusedFields(error);
        return errors ? refusals.show(errors) : sayError(messageOf(error));
      }
      await app.render({ keepMessages: true });
      say(done);
    });
  });
  return form;
};

const form = (id: string, heading: string, ...children: Array<Node | null>) =>
  h('form', { id, novalidate: true, 'aria-labelledby': `${id}-heading` }, h('h2', { id: `${id}-heading` }, heading), ...children);

export const settingsForm = (app: AppContext, integration: IntegrationView, choices: Choices) => {
  const name = h('input', { id: 'settings-name', type: 'text', ...maxChars(100), autocomplete: 'off', value: integration.name });
  const recipe = h(
    'select',
    { id: 'settings-recipe' },
    h('option', { value: '' }, 'Keep the mapping and status words as they are'),
    ...choices.recipes.map((r) => h('option', { value: r.name }, `Apply ${r.label}`)),
  );
  const preset = h(
    'select',
    { id: 'settings-default-preset' },
    h('option', { value: '', selected: !integration.default_preset }, 'None (the client’s, else the organisation’s)'),
    ...choices.presets.map((p) => h('option', { value: p.slug, selected: p.slug === integration.default_preset }, `${p.name} (${p.slug})`)),
  );
  const rate = h('input', { id: 'settings-rate-limit', type: 'number', inputmode: 'numeric', min: 1, max: 10000, step: 1, value: integration.rate_limit_per_minute });
  const body = () => {
    const perMinute = Number(rate.value);
    if (!name.value.trim()) return { refused: { name: ['Enter a name.'] } };
    if (!Number.isInteger(perMinute) || perMinute < 1) return { refused: { rate_limit_per_minute: ['Enter a whole number from 1.'] } };
    return {
      name: name.value.trim(),
      // A plan without presets has no default preset to set: the form leaves it as it is.
      ...(choices.preset_access ? { default_preset: preset.value || null } : {}),
      rate_limit_per_minute: perMinute,
      ...(recipe.value ? { recipe: recipe.value } : {}),
    };
  };
  return savingForm(
    app,
    integration.id,
    form(
      'settings-form',
      'Settings',
      field('Name', name),
      field('Helpdesk recipe', recipe, 'Applying a recipe replaces the mapping below with the helpdesk’s, and adds its status words.'),
      choices.preset_access
        ? field('Default preset', preset, 'The preset a trigger post uses when it names none; also put in the deep link below.')
        : presetsNotIncluded('settings-preset-plan-note'),
      field('Posts allowed per minute', rate, 'More posts a minute than this answer 429 with Retry-After.'),
      h('button', { id: 'save-settings', type: 'submit' }, 'Save settings'),
    ),
    { name: 'settings-name', recipe: 'settings-recipe', ...(choices.preset_access ? { default_preset: 'settings-default-preset' } : {}), rate_limit_per_minute: 'settings-rate-limit' },
    body,
    'The settings are saved.',
  );
};

export const mappingForm = (app: AppContext, integration: IntegrationView, choices: Choices) => {
  const ticketId = h('input', { id: 'ticket-id-paths', type: 'text', autocomplete: 'off', spellcheck: 'false', value: pathsText(integration.mapping.ticket_id) });
  const status = h('input', { id: 'status-paths', type: 'text', autocomplete: 'off', spellcheck: 'false', value: pathsText(integration.mapping.status) });
  const fieldInputs = choices.trigger_fields.map((name) => ({
    name,
    input: h('input', { id: `field-${name.replace(/\W/g, '-')}`, type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: name, value: pathsText(integration.mapping.fields[name]) }),
  }));
  const controls: Record<string, string> = { ticket_id_paths: 'ticket-id-paths', status_paths: 'status-paths' };
  for (const { name, input } of fieldInputs) controls[`fields.${name}`] = input.id;
  return savingForm(
    app,
    integration.id,
    form(
      'mapping-form',
      'Where the ticket id and status sit',
      h('p', { class: 'hint' }, 'Dotted paths into the body your helpdesk sends (ticket.id reads {"ticket":{"id":…}}); give alternatives separated by commas, the first one present wins.'),
      field('Ticket id paths', ticketId),
      field('Status paths', status),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Trigger fields (for the trigger URL)'),
        h('p', { class: 'hint' }, 'Leave a field empty to read it at its own name.'),
        ...fieldInputs.map(({ name, input }) => field(name, input)),
      ),
      h('button', { id: 'save-mapping', type: 'submit' }, 'Save the mapping'),
    ),
    controls,
    () => ({
      ticket_id_paths: pathsOf(ticketId.value),
      status_paths: pathsOf(status.value),
      fields: Object.fromEntries(fieldInputs.map(({ name, input }) => [name, pathsOf(input.value)])),
    }),
    'The mapping is saved.',
  );
};

export const statusMapForm = (app: AppContext, integration: IntegrationView) => {
  const changes = h('textarea', { id: 'status-map-changes', rows: 3, spellcheck: 'false', placeholder: 'Waiting on customer=pending' });
  return savingForm(
    app,
    integration.id,
    form(
      'status-map-form',
      'Status words',
      statusWordsTable(app, integration),
      field('Add or change words', changes, 'One word=status a line, status being open, pending, resolved or closed; a word already listed takes the new status. A word no one mapped counts as unknown and never ends a request.'),
      h('button', { id: 'save-status-map', type: 'submit' }, 'Save the status words'),
    ),
    { status_map: 'status-map-changes' },
    () => (changes.value.trim() ? { status_map: changes.value } : { refused: { status_map: ['Write at least one word=status line.'] } }),
    'The status words are saved.',
  );
};

export const authForm = (app: AppContext, integration: IntegrationView) => {
  const mode = h('select', { id: 'auth-mode' }, ...AUTH_MODES.map((m) => h('option', { value: m, selected: m === integration.auth.mode }, AUTH_TEXT[m])));
  const headerName = h('input', { id: 'auth-header-name', type: 'text', maxlength: 64, autocomplete: 'off', spellcheck: 'false', value: integration.auth.header_name ?? '' });
  // Write-only: never filled in from the service, which never sends it back.
  const secret = h('input', { id: 'auth-secret', type: 'password', autocomplete: 'new-password', spellcheck: 'false', maxlength: 512 });
  const secretLabel = h('label', { for: 'auth-secret' }, 'Signing secret');
  const secretHint = h('p', { class: 'hint', id: 'auth-secret-hint' });
  secret.setAttribute('aria-describedby', secretHint.id);
  const headerRow = field('Header name', headerName, 'The header your helpdesk sends the shared value in, e.g. X-Handoff-Secret.');
  const secretRow = h('div', { class: 'field' }, secretLabel, secretHint, secret);
  const show = () => {
    const chosen = mode.value as AuthMode;
    headerRow.hidden = chosen !== 'header';
    secretRow.hidden = chosen === 'none';
    secretLabel.textContent = chosen === 'header' ? 'Header value' : 'Signing secret';
    const kept = integration.auth.secret_set && (integration.auth.mode === 'header') === (chosen === 'header');
    secretHint.textContent = `At least 16 characters. It is never shown again, here or anywhere.${kept ? ' Leave it empty to keep the one set now.' : ''}`;
  };
  mode.addEventListener('change', show);
  show();
  return savingForm(
    app,
    integration.id,
    form(
      'auth-form',
      'Check of posts',
      h('p', { class: 'hint' }, `Besides the secret in each URL, posts can be made to carry a shared header or a signature. Now: ${AUTH_TEXT[integration.auth.mode]}${integration.auth.secret_set ? ', with a secret set' : ''}.`),
      field('Check', mode),
      headerRow,
      secretRow,
      h('button', { id: 'save-auth', type: 'submit' }, 'Save the check'),
    ),
    { auth: 'auth-mode', 'auth.mode': 'auth-mode', header_name: 'auth-header-name', 'auth.header_name': 'auth-header-name', header_value: 'auth-secret', signing_secret: 'auth-secret', 'auth.secret': 'auth-secret' },
    () => ({
      auth: {
        mode: mode.value,
        ...(mode.value === 'header' ? { header_name: headerName.value.trim() || null } : {}),
        ...(mode.value !== 'none' && secret.value ? { secret: secret.value } : {}),
      },
    }),
    'The check of posts is saved.',
  );
};
