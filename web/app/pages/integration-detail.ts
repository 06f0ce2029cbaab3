/// <reference lib="dom" />
/**
 * One ticketing integration in the member application, for owners and admins (docs/web-api.md,
 * Integrations): its recent unusable posts and failed helpdesk reads with the reasons, the deep
 * link for the helpdesk's ticket screen, its settings (pages/integration-settings.ts), its
 * helpdesk connection (pages/helpdesk-connection.ts), enabling and disabling it, and, after a
 * confirmation, new secrets for both URLs (the new URLs shown once).
 *
 * Route: /app/integrations/<id>. Stable hooks for automated tests:
 *   #integration-facts, #toggle-enabled, #refresh-activity, #activity (table; rows
 *   tr[data-activity]) or #no-activity; #deep-link #copy-deep-link;
 *   #rotate-urls, then #confirm-rotate-urls / #cancel-rotate-urls, then #rotated: #webhook-url
 *   #copy-webhook-url #trigger-url #copy-trigger-url; the forms' hooks are integration-settings.ts'
 *   and helpdesk-connection.ts'
 */
import { messageOf } from '../../shared/api.ts';
import { busy, copyText, facts, field, focusHeading, formatTime, h, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import { confirmAction } from '../confirm-action.ts';
import type { AppContext } from '../context.ts';
import { helpdeskSection, type HelpdeskChoice, type HelpdeskView } from './helpdesk-connection.ts';
import { authForm, mappingForm, settingsForm, statusMapForm } from './integration-settings.ts';
import { AUTH_TEXT, clientText, enabledBadge, inboundUrlBoxes, presetText, recipeText, type Choices, type IntegrationView } from './integrations.ts';

interface ActivityEntry {
  at: string;
  /** Posted to one of the two URLs, or a read of the ticket from the helpdesk's API that failed. */
  url: 'webhook' | 'trigger' | 'helpdesk';
  reason: string;
  ticket_id: string | null;
  status: string | null;
}

const URL_TEXT: Record<ActivityEntry['url'], string> = { webhook: 'Webhook URL', trigger: 'Trigger URL', helpdesk: 'Helpdesk API (reading the ticket)' };

const activitySection = (app: AppContext, entries: ActivityEntry[]) => {
  const refresh = h('button', { id: 'refresh-activity', type: 'button', class: 'secondary' }, 'Refresh');
  refresh.addEventListener('click', () =>
    busy(refresh, async () => {
      await app.render({ keepMessages: true });
      say('Activity refreshed: the list shows it as it is now.');
    }),
  );
  const row = (entry: ActivityEntry) =>
    h(
      'tr',
      { 'data-activity': entry.url },
      h('td', { class: 'nowrap' }, formatTime(entry.at, 'short')),
      h('td', {}, URL_TEXT[entry.url] ?? entry.url),
      h('td', { class: 'summary' }, entry.reason),
      h('td', { class: 'summary' }, entry.ticket_id ?? '—'),
      h('td', { class: 'summary' }, entry.status ?? '—'),
    );
  const list =
    entries.length === 0
      ? h('p', { id: 'no-activity' }, 'No unusable posts or failed helpdesk reads in the last 30 days. Posts the service could use are not listed here: they show on the requests they changed.')
      : tableWrap(
          h(
            'table',
            { id: 'activity' },
            h('caption', {}, 'Recent posts that could not be used and helpdesk reads that failed, newest first'),
            h('thead', {}, h('tr', {}, ...['When', 'Source', 'Reason', 'Ticket id', 'Status word'].map((text) => h('th', { scope: 'col' }, text)))),
            h('tbody', {}, ...entries.map(row)),
          ),
        );
  return h(
    'section',
    { 'aria-labelledby': 'activity-heading' },
    h('h2', { id: 'activity-heading' }, 'Activity'),
    h('p', {}, 'Every post is answered 202, even one that cannot be used, so your helpdesk will not tell you about those: they are listed here with the reason. So is every read of a ticket from the helpdesk’s API that failed: nothing was destroyed then.'),
    h('div', { class: 'actions' }, refresh),
    list,
  );
};

const deepLinkSection = (integration: IntegrationView) => {
  const output = h('input', { id: 'deep-link', type: 'text', readonly: true, spellcheck: 'false', autocomplete: 'off', class: 'code-output' });
  output.value = integration.deep_link_template;
  output.addEventListener('focus', () => output.select());
  const copy = h('button', { id: 'copy-deep-link', type: 'button', class: 'secondary' }, 'Copy the deep link template');
  copy.addEventListener('click', () => copyText(integration.deep_link_template, 'The deep link template is copied. Paste it as a link on your helpdesk’s ticket screen.'));
  return h(
    'section',
    { 'aria-labelledby': 'deep-link-heading', class: 'shown-once' },
    h('h2', { id: 'deep-link-heading' }, 'New request from a ticket'),
    field(
      'Deep link template',
      output,
      'Add it as a link or button on your helpdesk’s ticket screen: it opens a new request here with the ticket filled in. Replace {{ticket.id}} with your helpdesk’s own placeholder for the ticket id (for example {{issue.key}} in Jira, ${number} in ServiceNow), so each ticket’s link carries its id exactly as your helpdesk sends it. The preset is the default preset set below; without one, the link has none. It holds no secret.',
    ),
    copy,
  );
};

const rotateSection = (app: AppContext, integrationId: string) => {
  const section = h('section', { id: 'rotate-section', 'aria-labelledby': 'rotate-heading' });
  const rotate = confirmAction({
    id: 'rotate-urls',
    label: 'Rotate the URL secrets',
    question: 'Rotate both URL secrets? The webhook URL and the trigger URL in your helpdesk stop working at once (they answer 404) until you paste in the new ones, which are shown only once.',
    confirmLabel: 'Yes, rotate them now',
    onConfirm: (button) =>
      busy(button, async () => {
        try {
          const rotated = await app.post<{ webhook_url: string; trigger_url: string }>(`/app/api/integrations/${integrationId}/rotate`);
          const shown = h(
            'div',
            { id: 'rotated', 'aria-labelledby': 'rotated-heading' },
            h('h2', { id: 'rotated-heading' }, 'New URLs'),
            h('p', { class: 'notice' }, h('strong', {}, 'Copy both now: they are shown only this once. '), 'The old URLs no longer work; paste these into your helpdesk.'),
            ...inboundUrlBoxes(rotated),
          );
          replaceChildren(section, shown);
          focusHeading(shown.querySelector('h2')!);
          say('The URL secrets are rotated. Copy the new URLs now: they are shown only once.');
        } catch (error) {
          sayError(messageOf(error));
        }
      }),
  });
  return replaceChildren(
    section,
    h('h2', { id: 'rotate-heading' }, 'URL secrets'),
    h('p', {}, 'If a URL leaked, or someone who knew it left, rotate: both URLs get new secrets.'),
    rotate,
  ) as HTMLElement;
};

const enabledToggle = (app: AppContext, integration: IntegrationView) => {
  const toggle = h('button', { id: 'toggle-enabled', type: 'button', class: 'secondary' }, integration.enabled ? 'Disable this integration' : 'Enable this integration');
  toggle.addEventListener('click', () =>
    busy(toggle, async () => {
      try {
        await app.post(`/app/api/integrations/${integration.id}`, { enabled: !integration.enabled });
        await app.render({ keepMessages: true });
        say(integration.enabled ? 'The integration is disabled: its URLs answer 409 until it is enabled again.' : 'The integration is enabled.');
      } catch (error) {
        sayError(messageOf(error));
      }
    }),
  );
  return toggle;
};

export const integrationDetailPage = async (app: AppContext, id: string) => {
  const [detail, { data: activity }] = await Promise.all([
    app.get<Choices & { helpdesks: HelpdeskChoice[]; integration: IntegrationView & { helpdesk: HelpdeskView | null } }>(`/app/api/integrations/${id}`),
    app.get<{ data: ActivityEntry[] }>(`/app/api/integrations/${id}/activity`),
  ]);
  const integration = detail.integration;
  return h(
    'div',
    {},
    h('h1', { class: 'summary' }, integration.name),
    facts('integration-facts', [
      ['State', enabledBadge(integration)],
      ['Helpdesk', recipeText(detail, integration.recipe)],
      ['Client', clientText(detail, integration.client_id)],
      ['Check of posts', `${AUTH_TEXT[integration.auth.mode] ?? integration.auth.mode}${integration.auth.header_name ? ` (${integration.auth.header_name})` : ''}`],
      ['Helpdesk API', integration.helpdesk ? `Connected to ${integration.helpdesk.label}` : 'Not connected'],
      ['Default preset', presetText(detail, integration.default_preset)],
      ['Posts allowed', `${integration.rate_limit_per_minute} a minute`],
      ['Connected', formatTime(integration.created_at)],
      ['Changed', formatTime(integration.updated_at)],
    ]),
    h('div', { class: 'actions' }, enabledToggle(app, integration)),
    activitySection(app, activity),
    deepLinkSection(integration),
    settingsForm(app, integration, detail),
    mappingForm(app, integration, detail),
    statusMapForm(app, integration),
    authForm(app, integration),
    helpdeskSection(app, id, detail.helpdesks, integration.helpdesk),
    rotateSection(app, id),
    h('p', {}, h('a', { href: '/app/integrations' }, 'Back to integrations')),
  );
};
