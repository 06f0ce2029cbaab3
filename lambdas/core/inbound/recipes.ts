import type { FieldMapping } from './mapping.ts';
import type { StatusMap } from './status-words.ts';

/**
 * Ready-made mappings for the helpdesks customers use most, so connecting one is picking a name
 * rather than writing dotted paths. The shapes and status values come from each vendor's own
 * payloads (test/fixtures/helpdesks/ holds a sample of each, read back in the tests).
 */
export type InboundAuthMode = 'none' | 'header' | 'hmac' | 'zendesk' | 'hub-sha256' | 'hub-sha1';

export const RECIPE_NAMES = [
  'zendesk',
  'jira',
  'freshdesk',
  'servicenow',
  'zammad',
  'halopsa',
  'connectwise',
  'autotask',
] as const;
export type RecipeName = (typeof RECIPE_NAMES)[number];

export interface Recipe {
  name: RecipeName;
  label: string;
  mapping: FieldMapping;
  statusMap: StatusMap;
  /** The signature the helpdesk sends natively, or the mode to configure. */
  auth: InboundAuthMode;
  /** One line for the docs / CLI: how to set the helpdesk up. */
  setup: string;
}

/** Helpdesks send no trigger fields of their own; an admin writes them under SPEC's names. */
const ownFieldNames = (): FieldMapping['fields'] => ({});

export const RECIPES: Record<RecipeName, Recipe> = {
  zendesk: {
    name: 'zendesk',
    label: 'Zendesk',
    // Event webhooks put the ticket under `detail`, its status (in capitals) in `detail.status`
    // for every event type: read there, not from `event.current`, which is the changed field's new
    // value (a priority, a custom status id) on events that are not ticket.status_changed. Trigger
    // webhooks send the body the admin wrote.
    mapping: { ticketId: ['detail.id', 'ticket.id'], status: ['detail.status', 'event.current', 'ticket.status'], fields: ownFieldNames() },
    statusMap: { new: 'open', open: 'open', pending: 'pending', hold: 'pending', solved: 'resolved', closed: 'closed' },
    auth: 'zendesk',
    setup:
      'Admin Center > Apps and integrations > Webhooks: create a webhook on the "Ticket status changed" event (or one a trigger calls with {"ticket":{"id":"{{ticket.id}}","status":"{{ticket.status}}"}}) posting JSON to the webhook URL, then paste its signing secret here.',
  },
  jira: {
    name: 'jira',
    label: 'Jira Service Management',
    // Status names differ per workflow; the status category is the same everywhere.
    mapping: { ticketId: ['issue.key'], status: ['issue.fields.status.statusCategory.key'], fields: ownFieldNames() },
    statusMap: { new: 'open', indeterminate: 'pending', done: 'closed' },
    auth: 'hub-sha256',
    setup:
      'Jira settings > System > WebHooks: create a webhook for "Issue updated" to the webhook URL with a secret, and paste the same secret here.',
  },
  freshdesk: {
    name: 'freshdesk',
    label: 'Freshdesk / Freshservice',
    // The numeric code is stable; the label is what an admin templating {{ticket.status}} gets.
    // The flat names are the same fields sent form-encoded.
    mapping: {
      ticketId: ['freshdesk_webhook.ticket_id', 'ticket_id'],
      status: ['freshdesk_webhook.ticket_status_code', 'freshdesk_webhook.ticket_status', 'ticket_status_code', 'ticket_status'],
      fields: ownFieldNames(),
    },
    statusMap: { '2': 'open', '3': 'pending', '4': 'resolved', '5': 'closed' },
    // Freshdesk does not sign; its automation webhook can send a custom header.
    auth: 'header',
    setup:
      'Admin > Automations > Ticket updates: when the status changes, "Trigger webhook" POST to the webhook URL with the ticket id and status in JSON and a custom header holding the secret.',
  },
  servicenow: {
    name: 'servicenow',
    label: 'ServiceNow',
    // Incident `state` arrives as a numeric string; the labels are there for hand-written rules.
    mapping: { ticketId: ['number'], status: ['state'], fields: ownFieldNames() },
    statusMap: {
      '1': 'open',
      '2': 'open',
      '3': 'pending',
      '6': 'resolved',
      '7': 'closed',
      '8': 'closed',
      'in progress': 'open',
      canceled: 'closed',
      cancelled: 'closed',
    },
    // ServiceNow does not sign; the business rule sets the header itself.
    auth: 'header',
    setup:
      'An after-update business rule on Incident, when State changes, that POSTs {"number","state"} as JSON to the webhook URL with sn_ws.RESTMessageV2 and the secret in a header.',
  },
  zammad: {
    name: 'zammad',
    label: 'Zammad',
    // `ticket.number` is the id agents see and quote; `ticket.id` is internal.
    mapping: { ticketId: ['ticket.number'], status: ['ticket.state'], fields: ownFieldNames() },
    statusMap: { 'pending reminder': 'pending', 'pending close': 'pending', merged: 'closed' },
    auth: 'hub-sha1',
    setup:
      'Manage > Webhook: add the webhook URL with an HMAC SHA1 signature token (paste the token here), then a trigger on state change that calls it.',
  },
  halopsa: {
    name: 'halopsa',
    label: 'HaloPSA',
    // Status ids are set per instance; these are the common defaults, so check yours.
    mapping: { ticketId: ['ticket.id'], status: ['ticket.status_id'], fields: ownFieldNames() },
    statusMap: { '1': 'open', '2': 'open', '4': 'pending', '8': 'resolved', '9': 'closed' },
    // HaloPSA does not sign; it sends a configured header or basic auth.
    auth: 'header',
    setup:
      'Configuration > Integrations > Webhooks: a webhook on ticket updates to the webhook URL with the secret in a custom header; status ids are per instance, so map yours.',
  },
  connectwise: {
    name: 'connectwise',
    label: 'ConnectWise PSA',
    // The ticket itself is a JSON string in `Entity`; `closedFlag` holds whatever the board
    // calls its closed statuses, which the status names do not.
    mapping: { ticketId: ['ID', 'Entity.id'], status: ['Entity.closedFlag', 'Entity.status.name'], fields: ownFieldNames() },
    statusMap: { true: 'closed', false: 'open' },
    // ConnectWise's own callback signature needs a key fetched from `Metadata.key_url`, a network
    // call this check does not make, and a callback cannot add a header: the URL secret is the check.
    auth: 'none',
    setup:
      'System > API callbacks (or POST /system/callbacks): a Ticket callback whose URL is the webhook URL; closedFlag drives the status.',
  },
  autotask: {
    name: 'autotask',
    label: 'Autotask PSA',
    // Status is a picklist whose ids are set per instance; these are the defaults of a new
    // install (1 New, 5 Complete, 7 Waiting Customer, 8 In Progress), so check yours.
    mapping: { ticketId: ['Id'], status: ['Fields.Status'], fields: ownFieldNames() },
    statusMap: { '1': 'open', '5': 'closed', '7': 'pending', '8': 'open' },
    // Autotask's own X-Hook-Signature (base64 HMAC-SHA1) is not one of the modes checked here, and
    // its webhooks cannot add a header: the URL secret is the check.
    auth: 'none',
    setup:
      'REST API: create a TicketWebhooks entry whose WebhookUrl is the webhook URL, with Status as a subscribed field; status picklist ids are per instance, so map yours.',
  },
};

export const isRecipeName = (text: string): text is RecipeName => (RECIPE_NAMES as readonly string[]).includes(text);
