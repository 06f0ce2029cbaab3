/// <reference lib="dom" />
/**
 * Ticketing integrations in the member application, for owners and admins (docs/web-api.md,
 * Integrations): the organisation's integrations and a form to connect one. A new integration's
 * webhook URL and trigger URL each hold a secret, so each is shown once, in a box of its own.
 *
 * Route: /app/integrations. Stable hooks for automated tests:
 *   #integrations (table), each row's link a[data-integration-id="<id>"], #no-integrations
 *   #integration-form #integration-name #integration-client #integration-recipe #connect-integration;
 *   after connecting #integration-connected: #webhook-url #copy-webhook-url #trigger-url
 *   #copy-trigger-url #view-integration; a replayed connect shows #integration-replayed
 */
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, focusHeading, formatTime, h, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldErrors, refusedFields } from '../field-errors.ts';
import { newIdempotencyKey, shownOnce } from '../shown-once.ts';
import { maxChars } from '../../shared/max-chars.ts';

export type AuthMode = 'none' | 'header' | 'hmac' | 'zendesk' | 'hub-sha256' | 'hub-sha1';

export interface IntegrationView {
  id: string;
  name: string;
  enabled: boolean;
  client_id: string | null;
  recipe: string | null;
  mapping: { ticket_id: string[]; status: string[]; fields: Record<string, string[] | undefined> };
  status_map: Record<string, string>;
  auth: { mode: AuthMode; header_name: string | null; secret_set: boolean };
  default_preset: string | null;
  rate_limit_per_minute: number;
  created_at: string;
  updated_at: string;
  deep_link_template: string;
}

export interface Choices {
  clients: Array<{ id: string; name: string }>;
  recipes: Array<{ name: string; label: string; auth: AuthMode; setup: string }>;
  presets: Array<{ slug: string; name: string }>;
  /** Whether the organisation's plan includes presets (so a default preset can be set). */
  preset_access: boolean;
  /** Where a trigger post's fields are read, each mappable. */
  trigger_fields: string[];
}

export const AUTH_TEXT: Record<AuthMode, string> = {
  none: 'None: the secret in the URL only',
  header: 'Shared header',
  hmac: 'Signature (X-Service-Signature)',
  zendesk: 'Zendesk signature',
  // Jira signs under X-Hub-Signature (sha256=...); X-Hub-Signature-256, GitHub's, is read too.
  'hub-sha256': 'Signature (X-Hub-Signature, SHA-256)',
  'hub-sha1': 'Signature (X-Hub-Signature, SHA-1)',
};

export const recipeText = (choices: Choices, recipe: string | null) =>
  recipe ? (choices.recipes.find((r) => r.name === recipe)?.label ?? recipe) : 'Generic (your own mapping)';
export const clientText = (choices: Choices, clientId: string | null) =>
  clientId ? (choices.clients.find((c) => c.id === clientId)?.name ?? clientId) : 'All clients';
export const presetText = (choices: Choices, slug: string | null) =>
  slug ? (choices.presets.find((p) => p.slug === slug)?.name ?? slug) : 'None';
export const enabledBadge = (integration: IntegrationView) =>
  integration.enabled
    ? h('span', { class: 'badge badge-active', 'data-enabled': 'true' }, 'Enabled')
    : h('span', { class: 'badge badge-expired', 'data-enabled': 'false' }, 'Disabled');

/**
 * Both inbound URLs, each in its own shown-once box with its own Copy button: pasted into two
 * different places in the helpdesk, they should never be copied together.
 */
export const inboundUrlBoxes = (urls: { webhook_url: string; trigger_url: string }) => [
  shownOnce({
    id: 'webhook-url',
    label: 'Webhook URL (ticket status changes)',
    value: urls.webhook_url,
    copyId: 'copy-webhook-url',
    copyText: 'Copy the webhook URL',
    copied: 'The webhook URL is copied. Paste it into the helpdesk, then clear your clipboard.',
    rows: 3,
  }),
  shownOnce({
    id: 'trigger-url',
    label: 'Trigger URL (create a request for a ticket)',
    value: urls.trigger_url,
    copyId: 'copy-trigger-url',
    copyText: 'Copy the trigger URL',
    copied: 'The trigger URL is copied. Paste it into the helpdesk, then clear your clipboard.',
    rows: 3,
  }),
];

// --- The list ----------------------------------------------------------------------------------

const listSection = (choices: Choices, data: IntegrationView[]) => {
  if (data.length === 0) {
    return h('p', { id: 'no-integrations' }, 'No integrations yet. Connect your helpdesk below, so a ticket’s status can end its requests and a ticket can create one.');
  }
  const row = (integration: IntegrationView) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row', class: 'summary' }, h('a', { href: `/app/integrations/${integration.id}`, 'data-integration-id': integration.id }, integration.name)),
      h('td', {}, recipeText(choices, integration.recipe)),
      h('td', {}, clientText(choices, integration.client_id)),
      h('td', {}, enabledBadge(integration)),
      h('td', {}, AUTH_TEXT[integration.auth.mode] ?? integration.auth.mode),
      h('td', {}, presetText(choices, integration.default_preset)),
      h('td', { class: 'nowrap' }, formatTime(integration.created_at, 'short')),
    );
  return tableWrap(
    h(
      'table',
      { id: 'integrations' },
      h('caption', {}, "The organisation's integrations, oldest first"),
      h('thead', {}, h('tr', {}, ...['Name', 'Helpdesk', 'Client', 'State', 'Check of posts', 'Default preset', 'Connected'].map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...data.map(row)),
    ),
  );
};

// --- Connect -----------------------------------------------------------------------------------

interface Connected {
  integration: IntegrationView;
  webhook_url: string | null;
  trigger_url: string | null;
  recommended_auth: AuthMode | null;
}

const connectForm = (app: AppContext, choices: Choices) => {
  const name = h('input', { id: 'integration-name', name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const client = h(
    'select',
    { id: 'integration-client', name: 'client_id' },
    h('option', { value: '' }, 'All clients (the whole organisation)'),
    ...choices.clients.map((c) => h('option', { value: c.id }, c.name)),
  );
  const recipe = h(
    'select',
    { id: 'integration-recipe', name: 'recipe' },
    h('option', { value: '' }, 'Generic: ticket_id and status, or your own mapping'),
    ...choices.recipes.map((r) => h('option', { value: r.name }, r.label)),
  );
  const submit = h('button', { id: 'connect-integration', type: 'submit' }, 'Connect');
  const form = h(
    'form',
    { id: 'integration-form', novalidate: true, 'aria-labelledby': 'connect-heading' },
    h('h2', { id: 'connect-heading' }, 'Connect a helpdesk'),
    field('Name', name, 'How this integration is listed here and in the audit log, e.g. "Support desk".'),
    field('Client (optional)', client, 'An integration for one client links only that client’s tickets and requests.'),
    field('Helpdesk recipe (optional)', recipe, 'A recipe fills in where your helpdesk puts the ticket id and status, and its status words.'),
    submit,
  );
  const refusals = fieldErrors(form, { name: 'integration-name', client_id: 'integration-client', recipe: 'integration-recipe' });

  /** The same body sent again reuses its Idempotency-Key, so a retry after a lost answer cannot connect two. */
  let lastAttempt: { key: string; body: string } | null = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    refusals.clear();
    const body = { name: name.value.trim(), client_id: client.value || null, recipe: recipe.value || null };
    if (!body.name) return refusals.show({ name: ['Enter a name.'] });
    const text = JSON.stringify(body);
    if (lastAttempt?.body !== text) lastAttempt = { key: newIdempotencyKey(), body: text };
    const key = lastAttempt.key;
    void busy(submit, async () => {
      let connected: Connected;
      try {
        connected = await app.post<Connected>('/app/api/integrations', body, { 'Idempotency-Key': key });
      } catch (error) {
        const errors = refusedFields(error);
        return errors ? refusals.show(errors) : sayError(messageOf(error));
      }
      const result = connected.webhook_url && connected.trigger_url ? connectedSection(choices, connected) : replayedSection(connected.integration);
      replaceChildren(form, result);
      focusHeading(result.querySelector('h2')!);
      say(connected.webhook_url ? 'The integration is connected. Copy both URLs now: they are shown only once.' : 'This integration was already connected.');
    });
  });
  return form;
};

const connectedSection = (choices: Choices, connected: Connected) => {
  const recipe = choices.recipes.find((r) => r.name === connected.integration.recipe);
  return h(
    'section',
    { id: 'integration-connected', 'aria-labelledby': 'connected-heading' },
    h('h2', { id: 'connected-heading' }, 'Integration connected'),
    h('p', { class: 'notice' }, h('strong', {}, 'Copy both URLs now: they are shown only this once. '), 'Each holds its own secret; anyone with a URL can post to it. Rotating on the integration’s page gives new ones.'),
    ...inboundUrlBoxes({ webhook_url: connected.webhook_url!, trigger_url: connected.trigger_url! }),
    recipe ? h('p', { id: 'recipe-setup' }, h('strong', {}, `${recipe.label}: `), recipe.setup) : null,
    connected.recommended_auth && connected.recommended_auth !== 'none'
      ? h('p', {}, `Then switch on ${AUTH_TEXT[connected.recommended_auth]} on the integration’s page, with the secret your helpdesk gives you.`)
      : null,
    h('p', {}, h('a', { id: 'view-integration', href: `/app/integrations/${connected.integration.id}` }, 'Go to this integration'), ' to set its mapping, check and default preset.'),
  );
};

const replayedSection = (integration: IntegrationView) =>
  h(
    'section',
    { id: 'integration-replayed', 'aria-labelledby': 'replayed-heading' },
    h('h2', { id: 'replayed-heading' }, 'This integration was already connected'),
    h('p', {}, 'Your first attempt reached the service, but its answer did not reach this page, and the URLs cannot be shown again. Rotate the URL secrets on the integration’s page to get new URLs.'),
    h('p', {}, h('a', { id: 'view-integration', href: `/app/integrations/${integration.id}` }, 'Go to this integration')),
  );

export const integrationsPage = async (app: AppContext) => {
  const list = await app.get<Choices & { data: IntegrationView[] }>('/app/api/integrations');
  return h(
    'div',
    {},
    h('h1', {}, 'Integrations'),
    h('p', {}, 'Your helpdesk can tell the service when a ticket is resolved or closed (which ends the requests linked to it), and can create a request for a ticket.'),
    listSection(list, list.data),
    connectForm(app, list),
  );
};
