/// <reference lib="dom" />
/**
 * One webhook in the member application, for owners and admins (docs/web-api.md, Webhooks): its
 * deliveries, newest first, 25 at a time with older pages added under them on request (status,
 * attempts, next attempt, the receiver's last answer), a test ping, a redelivery of any delivery
 * (a new `webhook-id`, the same event), a secret rotation with an overlap (the new secret shown
 * once) and, after a confirmation, its deletion.
 *
 * Route: /app/webhooks/<id>. Stable hooks for automated tests:
 *   #webhook-facts, #ping-webhook, #refresh-deliveries, #deliveries (table; each row
 *   tr[data-delivery-id="<id>"] with its #redeliver-<id>), #no-deliveries, #load-older;
 *   #rotate-form #overlap-hours #rotate-secret, then #rotated: #rotated-secret #copy-rotated-secret;
 *   #delete-webhook, then #confirm-delete-webhook / #cancel-delete-webhook
 */
import { messageOf } from '../../shared/api.ts';
import { busy, facts, field, focusHeading, formatTime, h, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import { postThenRender } from '../actions.ts';
import { confirmAction } from '../confirm-action.ts';
import type { AppContext } from '../context.ts';
import { olderPages, type LogPage } from '../older-pages.ts';
import { shownOnce } from '../shown-once.ts';
import { createdViaText, healthOf, type WebhookView } from './webhooks.ts';

interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  message_id: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
}

const STATUS_TEXT: Record<DeliveryView['status'], string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed', cancelled: 'Cancelled' };
const STATUS_BADGE: Record<DeliveryView['status'], string> = { pending: 'badge-submitted', delivered: 'badge-completed', failed: 'badge-revoked', cancelled: 'badge-expired' };
const OVERLAPS: Array<[number, string]> = [
  [0, 'None: stop sending the old secret now'],
  [1, '1 hour'],
  [24, '1 day'],
  [72, '3 days'],
  [168, '7 days'],
];

const receiverAnswer = (delivery: DeliveryView) =>
  delivery.last_status !== null ? `HTTP ${delivery.last_status}` : delivery.last_error ? `No answer (${delivery.last_error})` : '—';

const deliveriesSection = (app: AppContext, webhookId: string, first: LogPage<DeliveryView>) => {
  if (first.data.length === 0) return h('p', { id: 'no-deliveries' }, 'No deliveries yet. Send a test ping to try the receiver.');
  const row = (delivery: DeliveryView) => {
    const redeliver = h('button', { id: `redeliver-${delivery.id}`, type: 'button', class: 'secondary', 'data-redeliver': delivery.id, 'aria-label': `Redeliver ${delivery.event_type} ${delivery.event_id}` }, 'Redeliver');
    redeliver.addEventListener('click', () =>
      postThenRender(app, redeliver, `/app/api/webhooks/${webhookId}/deliveries/${delivery.id}/redeliver`, 'Redelivery queued: a new delivery of the same event, with a new webhook-id.'),
    );
    return h(
      'tr',
      { 'data-delivery-id': delivery.id },
      h('th', { scope: 'row' }, delivery.event_type, h('span', { class: 'sub' }, delivery.event_id)),
      h('td', {}, h('span', { class: `badge ${STATUS_BADGE[delivery.status]}`, 'data-status': delivery.status }, STATUS_TEXT[delivery.status] ?? delivery.status)),
      h('td', {}, String(delivery.attempts)),
      h('td', { class: 'nowrap' }, formatTime(delivery.next_attempt_at, 'short')),
      h('td', {}, receiverAnswer(delivery)),
      h('td', {}, h('code', { class: 'message-id' }, delivery.message_id)),
      h('td', { class: 'nowrap' }, formatTime(delivery.created_at, 'short')),
      h('td', {}, redeliver),
    );
  };
  const columns = ['Event', 'Status', 'Attempts', 'Next attempt', 'Receiver answered', 'webhook-id', 'Created', 'Action'];
  const body = h('tbody', {});
  const path = `/app/api/webhooks/${webhookId}/deliveries`;
  const { button: older } = olderPages(app, { path, query: () => new URLSearchParams(), first, body, render: (rows) => replaceChildren(body, ...rows.map(row)), noun: 'deliveries' });
  const table = h(
    'table',
    { id: 'deliveries' },
    h('caption', {}, 'Deliveries, newest first'),
    h('thead', {}, h('tr', {}, ...columns.map((text) => h('th', { scope: 'col' }, text)))),
    body,
  );
  return h('div', {}, tableWrap(table), older);
};

const rotateForm = (app: AppContext, webhookId: string) => {
  const overlap = h('select', { id: 'overlap-hours', name: 'overlap_hours' }, ...OVERLAPS.map(([hours, text]) => h('option', { value: hours, selected: hours === 24 }, text)));
  const submit = h('button', { id: 'rotate-secret', type: 'submit', class: 'secondary' }, 'Rotate the secret');
  const form = h(
    'form',
    { id: 'rotate-form', 'aria-labelledby': 'rotate-heading' },
    h('h2', { id: 'rotate-heading' }, 'Signing secret'),
    h('p', {}, 'A new secret signs every delivery from now on; the old one is still sent alongside for the overlap, so your receiver can switch over.'),
    field('Keep sending the old secret for', overlap),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(submit, async () => {
      try {
        const rotated = await app.post<{ secret: string; old_secret_expires_at: string | null }>(`/app/api/webhooks/${webhookId}/rotate-secret`, { overlap_hours: Number(overlap.value) });
        const shown = h(
          'section',
          { id: 'rotated', 'aria-labelledby': 'rotated-heading' },
          h('h2', { id: 'rotated-heading' }, 'New signing secret'),
          h('p', { class: 'notice' }, h('strong', {}, 'Copy it now: it is shown only this once. '), rotated.old_secret_expires_at ? `The old secret is still sent until ${formatTime(rotated.old_secret_expires_at)}.` : 'The old secret is no longer sent.'),
          shownOnce({ id: 'rotated-secret', label: 'New signing secret', value: rotated.secret, copyId: 'copy-rotated-secret', copyText: 'Copy the secret', copied: 'The new secret is copied. Store it with your receiver, then clear your clipboard.' }),
        );
        replaceChildren(form, shown);
        focusHeading(shown.querySelector('h2')!);
        say('The secret is rotated. Copy the new one now: it is shown only once.');
      } catch (error) {
        sayError(messageOf(error));
      }
    });
  });
  return form;
};

export const webhookDetailPage = async (app: AppContext, id: string) => {
  const [{ data }, deliveries] = await Promise.all([
    app.get<{ data: WebhookView[] }>('/app/api/webhooks'),
    app.get<LogPage<DeliveryView>>(`/app/api/webhooks/${id}/deliveries`),
  ]);
  const webhook = data.find((w) => w.id === id);
  // Deleted between the two reads: the deliveries' 404 usually says so first.
  if (!webhook) throw new Error('No webhook with this id.');
  const ping = h('button', { id: 'ping-webhook', type: 'button' }, 'Send a test ping');
  ping.addEventListener('click', () => postThenRender(app, ping, `/app/api/webhooks/${id}/ping`, 'Test ping queued. Its delivery is listed below; refresh to see how it went.'));
  const refresh = h('button', { id: 'refresh-deliveries', type: 'button', class: 'secondary' }, 'Refresh');
  refresh.addEventListener('click', () =>
    busy(refresh, async () => {
      await app.render({ keepMessages: true });
      say('Deliveries refreshed: the list shows them as they are now.');
    }),
  );
  const remove = confirmAction({
    id: 'delete-webhook',
    label: 'Delete this webhook',
    question: 'Delete this webhook? No more events are sent to it, and deliveries still pending are cancelled. This cannot be undone.',
    confirmLabel: 'Yes, delete it',
    onConfirm: (button) =>
      busy(button, async () => {
        try {
          await app.post(`/app/api/webhooks/${id}/delete`);
          app.navigate('/app/webhooks', { keepMessages: true });
          say('The webhook is deleted.');
        } catch (error) {
          sayError(messageOf(error));
        }
      }),
  });
  return h(
    'div',
    {},
    h('h1', { class: 'summary' }, webhook.description ?? 'Webhook'),
    facts('webhook-facts', [
      ['Receiver URL', h('span', { class: 'summary' }, webhook.url)],
      ['Events', webhook.events.join(', ')],
      ['Deliveries', healthOf(webhook)],
      ['Made in', createdViaText(webhook)],
      ['Created', formatTime(webhook.created_at)],
    ]),
    h('h2', {}, 'Deliveries'),
    h('div', { class: 'actions' }, ping, ' ', refresh),
    deliveriesSection(app, id, deliveries),
    rotateForm(app, id),
    h('h2', {}, 'Delete'),
    remove,
    h('p', {}, h('a', { href: '/app/webhooks' }, 'Back to webhooks')),
  );
};
