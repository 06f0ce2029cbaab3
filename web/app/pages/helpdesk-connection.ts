/// <reference lib="dom" />
/**
 * The helpdesk connection of an integration's page (pages/integration-detail.ts; docs/web-api.md,
 * POST /app/api/integrations/{id}/helpdesk and …/helpdesk/check): whether the integration reads
 * its tickets back from the helpdesk's REST API, a form to connect it (the helpdesk, its address,
 * exactly the credential fields and settings that helpdesk takes), a test read of one ticket, and,
 * after a confirmation, disconnecting it. The credentials are write-only: the page only ever learns
 * that they are stored, and empties its secret fields once the service has them.
 *
 * Stable hooks for automated tests:
 *   #helpdesk-section, #helpdesk-facts or #no-helpdesk;
 *   #helpdesk-form #helpdesk-adapter #helpdesk-url #helpdesk-client-id #helpdesk-client-secret
 *   #helpdesk-email #helpdesk-api-token #helpdesk-username #helpdesk-password
 *   #helpdesk-company-id #helpdesk-public-key #helpdesk-private-key #helpdesk-integration-code
 *   #helpdesk-closed-status-names #helpdesk-tenant
 *   #helpdesk-resolved-status-ids #helpdesk-closed-status-ids #connect-helpdesk (a refusal under each: #<id>-error);
 *   when connected: #helpdesk-check-form #helpdesk-ticket #check-helpdesk, the answer in
 *   #helpdesk-check-result (its p[data-ok]); #disconnect-helpdesk, then
 *   #confirm-disconnect-helpdesk / #cancel-disconnect-helpdesk
 */
import type { HelpdeskFailureReason } from '../../../lambdas/core/helpdesk.ts';
import type { HELPDESKS, HelpdeskSettingName, toHelpdeskView } from '../../../lambdas/core/helpdesk-connection.ts';
import type { checkHelpdeskTicket } from '../../../lambdas/core/use-cases/integrations/connect-helpdesk.ts';
import type { helpdeskChoices } from '../../../lambdas/core/use-cases/integrations/member-helpdesk.ts';
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, facts, field, focusHeading, formatTime, h, replaceChildren, say, sayError } from '../../shared/dom.ts';
import { confirmAction } from '../confirm-action.ts';
import type { AppContext } from '../context.ts';
import { fieldErrors, refusedFields, type FieldErrors } from '../field-errors.ts';
import { maxChars } from '../../shared/max-chars.ts';

/** The service's own shapes (type-only imports: nothing of the server is bundled). */
export type HelpdeskView = NonNullable<ReturnType<typeof toHelpdeskView>>;
export type HelpdeskChoice = ReturnType<typeof helpdeskChoices>[number];
type CheckAnswer = Awaited<ReturnType<typeof checkHelpdeskTicket>>;
type CredentialName = (typeof HELPDESKS)[keyof typeof HELPDESKS]['credentials'][number];

const CREDENTIALS: Record<CredentialName, { label: string; type: 'text' | 'email' | 'password' }> = {
  client_id: { label: 'Client id', type: 'text' },
  client_secret: { label: 'Client secret', type: 'password' },
  email: { label: 'Account email', type: 'email' },
  api_token: { label: 'API token', type: 'password' },
  username: { label: 'Integration user', type: 'text' },
  password: { label: 'Password', type: 'password' },
  company_id: { label: 'Company id', type: 'text' },
  public_key: { label: 'Public key', type: 'text' },
  private_key: { label: 'Private key', type: 'password' },
  integration_code: { label: 'API integration code', type: 'text' },
};

const SETTINGS: Record<HelpdeskSettingName, { label: string; fact: string; hint: string }> = {
  closed_status_names: {
    label: 'Done statuses that mean closed (optional)',
    fact: 'Done statuses that mean closed',
    hint: 'Names of workflow statuses in the Done category, separated by commas, for example Closed, Cancelled. Every other Done status is resolved.',
  },
  tenant: { label: 'Tenant (optional)', fact: 'Tenant', hint: 'For a Halo-hosted instance, the tenant its API details show; leave it empty for one hosted elsewhere.' },
  resolved_status_ids: {
    label: 'Status ids that mean resolved (optional)',
    fact: 'Status ids that mean resolved',
    hint: 'Whole numbers separated by commas, for example 8 (Halo’s usual Resolved). A ticket Halo has closed is closed whatever its status; without ids, every other ticket is open.',
  },
  closed_status_ids: {
    label: 'Status ids that mean closed (optional)',
    fact: 'Status ids that mean closed',
    hint: 'Whole numbers separated by commas, for example 5, 14. Leave it empty for 5, Autotask’s usual Complete. Every other status is open.',
  },
};

/** Where the admin finds the credentials, by helpdesk. */
const SETUP: Record<keyof typeof HELPDESKS, string> = {
  zendesk: 'Zendesk: an OAuth client using client credentials (Admin Center, Apps and integrations, APIs, OAuth clients): its identifier and secret. The service asks for tickets:read and tickets:write.',
  jira: 'Jira Service Management: an Atlassian account’s email and an API token of that account (id.atlassian.com, Security, API tokens). Replies in a ticket are posted as that account.',
  halopsa: 'HaloPSA: an API application using Client ID and Secret (Services) (Configuration, Integrations, Halo API, View Applications).',
  servicenow:
    'ServiceNow: a dedicated integration user (User Administration, Users; Web service access only) with the itil role, its User ID and password. Replies are posted as that user, as customer-visible additional comments.',
  zammad:
    'Zammad: an access token of an agent (Profile, Token Access) with the ticket.agent permission, as the API token. Tickets are named by their number; replies are posted as that agent, as notes the customer sees.',
  freshdesk:
    'Freshdesk: the API key of an agent (Profile settings, View API key), as the API token. Replies are posted as that agent, as replies the requester is sent.',
  freshservice:
    'Freshservice: the API key of an agent (Profile settings, Your API key), as the API token. Replies are posted as that agent, as replies the requester is sent.',
  connectwise:
    'ConnectWise PSA: the company id you sign in with; an API member (System, Members, API Members) whose security role may view and edit service tickets, and its public and private keys (API Keys tab); and a client id from developer.connectwise.com. Replies are posted as that member, as Discussion notes.',
  autotask:
    'Autotask: an API user (Admin, Resources/Users, New, New API User) with a copy of the API User security level that may only view tickets and add ticket notes; its API tracking identifier is the API integration code, its Username (Key) and Password (Secret) the user and password. The URL is your zone’s web services address (webservices5.autotask.net, for example, with https). Replies are notes published to All Autotask Users, which customers see.',
};

/** What to do about a failed read, by reason. */
const ADVICE: Record<HelpdeskFailureReason, string> = {
  unauthorized: 'Check the credentials, and connect again with new ones.',
  not_found: 'Check the ticket id; or the credentials may not see this ticket.',
  rate_limited: 'Wait, then try again.',
  unavailable: 'Try again later.',
  timeout: 'Try again later; if it keeps happening, check the helpdesk URL.',
  unexpected_answer: 'Check that the helpdesk URL is the helpdesk’s own site address.',
};

const listOf = (text: string) => text.split(',').map((item) => item.trim()).filter(Boolean);
const idOf = (name: string) => `helpdesk-${name.replaceAll('_', '-')}`;

const connectForm = (app: AppContext, integrationId: string, choices: HelpdeskChoice[], current: HelpdeskView | null) => {
  const adapter = h('select', { id: 'helpdesk-adapter' }, ...choices.map((c) => h('option', { value: c.name, selected: c.name === current?.adapter }, c.label)));
  const setup = h('p', { class: 'hint', id: 'helpdesk-adapter-hint' });
  adapter.setAttribute('aria-describedby', setup.id);
  const url = h('input', { id: 'helpdesk-url', type: 'text', inputmode: 'url', maxlength: 2000, autocomplete: 'off', spellcheck: 'false', value: current?.url ?? '' });
  const urlRow = field('Helpdesk URL', url, 'The site address only.');
  const credentials = (Object.keys(CREDENTIALS) as CredentialName[]).map((name) => {
    // Write-only: never filled in from the service, which never sends them back.
    const input = h('input', { id: idOf(name), type: CREDENTIALS[name].type, maxlength: 2000, autocomplete: 'off', spellcheck: 'false' });
    return { name, input, row: field(CREDENTIALS[name].label, input) };
  });
  const settingValue: Record<HelpdeskSettingName, string> = {
    closed_status_names: current?.closed_status_names.join(', ') ?? '',
    tenant: current?.tenant ?? '',
    resolved_status_ids: current?.resolved_status_ids.join(', ') ?? '',
    closed_status_ids: current?.closed_status_ids.join(', ') ?? '',
  };
  const settings = (Object.keys(SETTINGS) as HelpdeskSettingName[]).map((name) => {
    const input = h('input', { id: idOf(name), type: 'text', maxlength: 2000, autocomplete: 'off', spellcheck: 'false', value: settingValue[name] });
    return { name, input, row: field(SETTINGS[name].label, input, SETTINGS[name].hint) };
  });
  const chosen = () => choices.find((c) => c.name === adapter.value) ?? choices[0]!;
  const show = () => {
    const choice = chosen();
    setup.textContent = SETUP[choice.name as keyof typeof HELPDESKS] ?? '';
    urlRow.querySelector('.hint')!.textContent = `The site address only, for example ${choice.example}.`;
    for (const { name, row } of credentials) row.hidden = !(choice.credentials as readonly string[]).includes(name);
    for (const { name, row } of settings) row.hidden = !(choice.settings as readonly string[]).includes(name);
  };
  adapter.addEventListener('change', show);
  show();

  const submit = h('button', { id: 'connect-helpdesk', type: 'submit' }, current ? 'Replace the connection' : 'Connect');
  const form = h(
    'form',
    { id: 'helpdesk-form', novalidate: true, 'aria-labelledby': 'helpdesk-form-heading' },
    h('h2', { id: 'helpdesk-form-heading' }, current ? 'Connect the helpdesk again' : 'Connect the helpdesk'),
    current ? h('p', { class: 'hint' }, 'Connecting again replaces the stored credentials: give all of them again.') : null,
    h('div', { class: 'field' }, h('label', { for: adapter.id }, 'Helpdesk'), setup, adapter),
    urlRow,
    ...credentials.map(({ row }) => row),
    ...settings.map(({ row }) => row),
    submit,
  );
  const controls: Record<string, string> = { adapter: adapter.id, helpdesk_url: url.id };
  for (const { name, input } of [...credentials, ...settings]) controls[name] = input.id;
  const refusals = fieldErrors(form, controls);

  const bodyOf = (): Record<string, unknown> | { refused: FieldErrors } => {
    const choice = chosen();
    const body: Record<string, unknown> = { adapter: choice.name, helpdesk_url: url.value.trim() };
    for (const { name, input } of credentials) if ((choice.credentials as readonly string[]).includes(name)) body[name] = input.value;
    for (const { name, input } of settings) {
      if (!(choice.settings as readonly string[]).includes(name)) continue;
      if (name === 'tenant') body.tenant = input.value.trim() || null;
      else if (name === 'closed_status_names') body.closed_status_names = listOf(input.value);
      else {
        const ids = listOf(input.value);
        if (ids.some((id) => !/^\d{1,15}$/.test(id) || Number(id) < 1)) return { refused: { [name]: ['Give whole numbers from 1, separated by commas.'] } };
        body[name] = ids.map(Number);
      }
    }
    return body;
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    refusals.clear();
    const body = bodyOf();
    if ('refused' in body) return refusals.show(body.refused as FieldErrors);
    void busy(submit, async () => {
      try {
        await app.post(`/app/api/integrations/${integrationId}/helpdesk`, body);
      } catch (error) {
        const errors = refusedFields(error);
        return errors ? refusals.show(errors) : sayError(messageOf(error));
      }
      for (const { input } of credentials) if (input.type === 'password') input.value = '';
      await app.render({ keepMessages: true });
      const heading = document.getElementById('helpdesk-heading');
      if (heading) focusHeading(heading);
      say(`Connected to ${chosen().label}. The credentials are stored sealed and are never shown again.`);
    });
  });
  return form;
};

/** The answer of a test read, in words. */
const checkAnswer = (label: string, answer: CheckAnswer) => {
  if (answer.ok) {
    const closing = answer.counts_as_closed ? 'counts as closed: a close would destroy' : 'does not count as closed: a close would destroy nothing';
    return h(
      'div',
      {},
      h('p', { id: 'helpdesk-check-answer', class: 'ok', 'data-ok': 'true', 'data-status': answer.status }, `${label} says “${answer.vendor_status}”, which is ${answer.status} (${closing}).`),
      h('p', { class: 'hint' }, `Ticket ${answer.ticket_id}, read ${formatTime(answer.read_at)}. Nothing was changed.`),
    );
  }
  const wait = answer.retry_after_seconds ? ` The helpdesk asked to wait ${answer.retry_after_seconds} seconds.` : '';
  return h(
    'div',
    {},
    h(
      'p',
      { id: 'helpdesk-check-answer', class: 'notice', 'data-ok': 'false', 'data-reason': answer.reason },
      h('strong', {}, `Ticket ${answer.ticket_id} was not read (${answer.reason}). `),
      `${answer.message}. ${ADVICE[answer.reason] ?? ''}${wait}`.trim(),
    ),
  );
};

const checkForm = (app: AppContext, integrationId: string, connection: HelpdeskView) => {
  const ticket = h('input', { id: 'helpdesk-ticket', type: 'text', ...maxChars(120), autocomplete: 'off', spellcheck: 'false' });
  const submit = h('button', { id: 'check-helpdesk', type: 'submit' }, 'Read the ticket');
  const result = h('div', { id: 'helpdesk-check-result', 'aria-live': 'polite' });
  const form = h(
    'form',
    { id: 'helpdesk-check-form', novalidate: true, 'aria-labelledby': 'helpdesk-check-heading' },
    h('h2', { id: 'helpdesk-check-heading' }, 'Test the helpdesk connection'),
    field('Ticket id', ticket, `Reads one ticket from ${connection.label} as a close would, and says what its status means here. Nothing is changed.`),
    submit,
    result,
  );
  const refusals = fieldErrors(form, { ticket: ticket.id });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    refusals.clear();
    replaceChildren(result);
    if (!ticket.value.trim()) return refusals.show({ ticket: ['Enter a ticket id.'] });
    void busy(submit, async () => {
      try {
        const answer = await app.post<CheckAnswer>(`/app/api/integrations/${integrationId}/helpdesk/check`, { ticket: ticket.value.trim() });
        replaceChildren(result, checkAnswer(connection.label, answer));
      } catch (error) {
        const errors = refusedFields(error);
        if (errors) refusals.show(errors);
        else sayError(messageOf(error));
      }
    });
  });
  return form;
};

const disconnect = (app: AppContext, integrationId: string, connection: HelpdeskView) =>
  confirmAction({
    id: 'disconnect-helpdesk',
    label: 'Disconnect the helpdesk',
    question: `Disconnect ${connection.label}? Its credentials are deleted at once. Closing statuses are then no longer read back from the helpdesk, and links can no longer be posted in its tickets.`,
    confirmLabel: 'Yes, disconnect it',
    onConfirm: (button) =>
      busy(button, async () => {
        try {
          await app.post(`/app/api/integrations/${integrationId}/helpdesk`, { adapter: 'none' });
        } catch (error) {
          return sayError(messageOf(error));
        }
        await app.render({ keepMessages: true });
        const heading = document.getElementById('helpdesk-heading');
        if (heading) focusHeading(heading);
        say(`Disconnected from ${connection.label}; its credentials are deleted.`);
      }),
  });

/**
 * The connection as it stands, then, when connected, a test read; the form that connects (or
 * connects again); and, when connected, disconnecting.
 */
export const helpdeskSection = (app: AppContext, integrationId: string, choices: HelpdeskChoice[], connection: HelpdeskView | null) => {
  const state = connection
    ? facts('helpdesk-facts', [
        ['Helpdesk', connection.label],
        ['Helpdesk URL', h('span', { class: 'summary' }, connection.url)],
        ['Credentials', 'Stored sealed; never shown again, here or anywhere'],
        ['Connected', formatTime(connection.connected_at)],
        [SETTINGS.closed_status_names.fact, connection.closed_status_names.join(', ')],
        [SETTINGS.tenant.fact, connection.tenant ?? ''],
        [SETTINGS.resolved_status_ids.fact, connection.resolved_status_ids.join(', ')],
        [SETTINGS.closed_status_ids.fact, connection.closed_status_ids.join(', ')],
      ])
    : h('p', { id: 'no-helpdesk' }, 'Not connected: statuses posted to the webhook URL are unverified, and destroy nothing unless the organisation trusts unverified statuses.');
  return h(
    'div',
    {},
    h(
      'section',
      { id: 'helpdesk-section', 'aria-labelledby': 'helpdesk-heading' },
      h('h2', { id: 'helpdesk-heading' }, 'Helpdesk connection'),
      h('p', {}, 'Connected to your helpdesk’s API, the service reads a ticket back from the helpdesk before a close destroys anything: only the helpdesk’s own answer counts (a verified close). It can also post a request’s link in the ticket.'),
      state,
    ),
    connection ? checkForm(app, integrationId, connection) : null,
    connectForm(app, integrationId, choices, connection),
    connection
      ? h(
          'section',
          { 'aria-labelledby': 'disconnect-helpdesk-heading' },
          h('h2', { id: 'disconnect-helpdesk-heading' }, 'Disconnect the helpdesk'),
          h('p', {}, 'Deletes the stored credentials. Closes are then unverified again, as before connecting.'),
          disconnect(app, integrationId, connection),
        )
      : null,
  );
};
