/// <reference lib="dom" />
/**
 * Webhooks in the member application, for owners and admins (docs/web-api.md, Webhooks): the
 * organisation's subscriptions, with their health, and a form to add one. The signing secret of a
 * new subscription is shown once, with its copy button.
 *
 * Route: /app/webhooks. Stable hooks for automated tests:
 *   #webhooks (table), each row's link a[data-webhook-id="<id>"], #no-webhooks
 *   #webhook-form #webhook-url #webhook-description, one checkbox per event type
 *   input[name="events"][value="<type>"], #create-webhook;
 *   after creating #webhook-created: #webhook-secret #copy-webhook-secret #view-webhook;
 *   a replayed create shows #webhook-replayed; on a plan without webhooks #webhooks-plan-note
 *   stands in place of the form
 */
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../lambdas/core/events.ts';
import { ApiFailure, messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, focusHeading, formatTime, h, refuseField, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { webhooksNotIncluded } from '../plan-notes.ts';
import { newIdempotencyKey, shownOnce } from '../shown-once.ts';

export interface WebhookView {
  id: string;
  object: 'webhook';
  url: string;
  description: string | null;
  events: string[];
  is_active: boolean;
  client_id: string | null;
  created_via: 'api' | 'ui';
  failing_since: string | null;
  last_delivered_at: string | null;
  created_at: string;
}

/** Whether deliveries get through, in words: failing since when, else when one last did. */
export const healthOf = (webhook: WebhookView) =>
  webhook.failing_since
    ? h('span', { class: 'badge badge-revoked' }, `Failing since ${formatTime(webhook.failing_since, 'short')}`)
    : webhook.last_delivered_at
      ? h('span', {}, `Delivered ${formatTime(webhook.last_delivered_at, 'short')}`)
      : h('span', { class: 'sub' }, 'Nothing delivered yet');

const CREATED_VIA_TEXT: Record<WebhookView['created_via'], string> = { api: 'API', ui: 'This app' };
export const createdViaText = (webhook: WebhookView) => CREATED_VIA_TEXT[webhook.created_via] ?? webhook.created_via;

// --- The list ----------------------------------------------------------------------------------

const listSection = (data: WebhookView[]) => {
  if (data.length === 0) return h('p', { id: 'no-webhooks' }, 'No webhooks yet. Add one below to have events sent to your systems.');
  const row = (webhook: WebhookView) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row', class: 'url-cell' }, h('a', { href: `/app/webhooks/${webhook.id}`, 'data-webhook-id': webhook.id }, webhook.url), webhook.description ? h('span', { class: 'sub' }, webhook.description) : null),
      h('td', {}, webhook.events.join(', ')),
      h('td', {}, healthOf(webhook)),
      h('td', {}, createdViaText(webhook)),
      h('td', { class: 'nowrap' }, formatTime(webhook.created_at, 'short')),
    );
  return tableWrap(
    h(
      'table',
      { id: 'webhooks' },
      h('caption', {}, "The organisation's webhooks, oldest first"),
      h('thead', {}, h('tr', {}, ...['Receiver', 'Events', 'Deliveries', 'Made in', 'Created'].map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...data.map(row)),
    ),
  );
};

// --- Create ------------------------------------------------------------------------------------

const createForm = (app: AppContext) => {
  const url = h('input', { id: 'webhook-url', name: 'url', type: 'url', inputmode: 'url', maxlength: 2048, autocomplete: 'off', spellcheck: 'false', required: true });
  const description = h('input', { id: 'webhook-description', name: 'description', type: 'text', maxlength: 200, autocomplete: 'off' });
  const boxes = SUBSCRIBABLE_EVENT_TYPES.map((type) => h('input', { id: `event-${type.replace(/\W/g, '-')}`, type: 'checkbox', name: 'events', value: type }));
  const events = h(
    'fieldset',
    { id: 'webhook-events', class: 'checks' },
    h('legend', {}, 'Events to send'),
    ...boxes.map((box) => h('div', { class: 'check' }, box, h('label', { for: box.id }, box.value))),
  );
  const submit = h('button', { id: 'create-webhook', type: 'submit' }, 'Add webhook');
  const form = h(
    'form',
    { id: 'webhook-form', novalidate: true, 'aria-labelledby': 'new-webhook-heading' },
    h('h2', { id: 'new-webhook-heading' }, 'Add a webhook'),
    field('Receiver URL', url, 'An https address on a public host. Each event is POSTed to it, signed with the secret shown once after you add it.'),
    field('Description (optional)', description),
    events,
    submit,
  );

  /** The same body sent again reuses its Idempotency-Key, so a retry after a lost answer cannot add two. */
  let lastAttempt: { key: string; body: string } | null = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    const chosen = boxes.filter((box) => box.checked).map((box) => box.value);
    if (!url.value.trim()) {
      return refuseField(url, 'Enter the receiver URL.');
    }
    if (chosen.length === 0) {
      return refuseField(boxes[0]!, 'Choose at least one event to send.');
    }
    const body = { url: url.value.trim(), events: chosen, description: description.value.trim() || null };
    const text = JSON.stringify(body);
    if (lastAttempt?.body !== text) lastAttempt = { key: newIdempotencyKey(), body: text };
    const key = lastAttempt.key;
    void busy(submit, async () => {
      let created: WebhookView & { secret: string | null };
      try {
        created = await app.post('/app/api/webhooks', body, { 'Idempotency-Key': key });
      } catch (error) {
        sayError(error instanceof ApiFailure && error.status === 0 ? 'The service could not be reached. Press the button again to retry.' : messageOf(error));
        if (error instanceof ApiFailure && error.status === 422) (error.body.errors && 'url' in (error.body.errors as object) ? url : boxes[0]!).focus();
        return;
      }
      const result = created.secret ? createdSection(created, created.secret) : replayedSection(created);
      replaceChildren(form, result);
      focusHeading(result.querySelector('h2')!);
      say(created.secret ? 'The webhook is added. Copy its signing secret now: it is shown only once.' : 'This webhook was already added.');
    });
  });
  return form;
};

const createdSection = (webhook: WebhookView, secret: string) =>
  h(
    'section',
    { id: 'webhook-created', 'aria-labelledby': 'webhook-created-heading' },
    h('h2', { id: 'webhook-created-heading' }, 'Webhook added'),
    h('p', { class: 'notice' }, h('strong', {}, 'Copy the signing secret now: it is shown only this once. '), 'Your receiver checks each delivery’s signature with it.'),
    shownOnce({ id: 'webhook-secret', label: 'Signing secret', value: secret, copyId: 'copy-webhook-secret', copyText: 'Copy the secret', copied: 'The signing secret is copied. Store it with your receiver, then clear your clipboard.' }),
    h('p', {}, h('a', { id: 'view-webhook', href: `/app/webhooks/${webhook.id}` }, 'Go to this webhook'), ' to send a test ping.'),
  );

const replayedSection = (webhook: WebhookView) =>
  h(
    'section',
    { id: 'webhook-replayed', 'aria-labelledby': 'webhook-replayed-heading' },
    h('h2', { id: 'webhook-replayed-heading' }, 'This webhook was already added'),
    h('p', {}, 'Your first attempt reached the service, but its answer did not reach this page, and the secret cannot be shown again. Rotate the secret on the webhook’s page to get a new one.'),
    h('p', {}, h('a', { id: 'view-webhook', href: `/app/webhooks/${webhook.id}` }, 'Go to this webhook')),
  );

export const webhooksPage = async (app: AppContext) => {
  const { data, webhook_access: included } = await app.get<{ data: WebhookView[]; webhook_access: boolean }>('/app/api/webhooks');
  return h(
    'div',
    {},
    h('h1', {}, 'Webhooks'),
    h('p', {}, 'Your systems can be told of events (a request created, submitted, completed…) as they happen: the service POSTs each one, signed, to the webhooks below.'),
    listSection(data),
    included ? createForm(app) : webhooksNotIncluded('webhooks-plan-note'),
  );
};
