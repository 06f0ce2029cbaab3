/// <reference lib="dom" />
/**
 * The organisation's policy (/app/organisation/policy, owners and admins; docs/web-api.md,
 * Organisation settings): how long a credential is kept (the TTL options and the default), how the
 * subject proves who they are (the minimum and the default), how long a link stays valid, what a
 * closed ticket does, and whether a rotation is signalled after a handover. Saving says what
 * changed; a refusal is shown under the field it is about.
 *
 * Stable hooks for automated tests:
 *   #policy-form #ttl-options #default-ttl #minimum-verification #default-verification #link-lifetime
 *   #close-statuses (fieldset, input[name="close_status"][value]) #trust-unverified #grace-minutes
 *   #revoke-unsubmitted #rotation-signal #save-policy; a field's refusal in #<control id>-error;
 *   after saving: #policy-changes (li per change, or #no-policy-changes)
 */
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, h, replaceChildren, say, sayError } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldMessages, refusedFields } from '../field-errors.ts';
import { organisationTabs } from '../organisation-tabs.ts';
import { ttlText, VERIFICATION_TEXT } from '../request-words.ts';

interface PolicyView {
  ttl_options_minutes: number[];
  default_ttl_minutes: number;
  minimum_verification: string;
  default_verification: string;
  link_lifetime_minutes: number;
  ticket: { close_statuses: string[]; trust_unverified_webhooks: boolean; grace_period_minutes: number; revoke_unsubmitted_on_close: boolean };
  rotation_signal: boolean;
}

interface Bounds {
  min: number;
  max: number;
}

interface PolicyAnswer {
  policy: PolicyView;
  choices: { verification_modes: string[]; close_statuses: string[]; ttl_minutes: Bounds; max_ttl_options: number; link_lifetime_minutes: Bounds; grace_period_minutes: Bounds };
}

interface Change {
  field: string;
  from: unknown;
  to: unknown;
}

const FIELD_TEXT: Record<string, string> = {
  ttl_options_minutes: 'TTL options',
  default_ttl_minutes: 'Default TTL',
  minimum_verification: 'Minimum verification',
  default_verification: 'Default verification',
  link_lifetime_minutes: 'Link lifetime',
  'ticket.close_statuses': 'Ticket statuses that count as closed',
  'ticket.trust_unverified_webhooks': 'Trust unverified ticket webhooks',
  'ticket.grace_period_minutes': 'Grace period after a ticket closes',
  'ticket.revoke_unsubmitted_on_close': 'Revoke unsubmitted requests when the ticket closes',
  rotation_signal: 'Rotation signal after handover',
};

const valueText = (field: string, value: unknown): string => {
  if (Array.isArray(value)) return value.map((item) => valueText(field, item)).join(', ') || 'none';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number') return field.endsWith('minutes') || field === 'ttl_options_minutes' ? ttlText(value) : String(value);
  return VERIFICATION_TEXT[String(value)] ? `${VERIFICATION_TEXT[String(value)]} (${value})` : String(value);
};

const option = (value: string, text: string, selected: boolean) => h('option', { value, selected }, text);
const checkbox = (id: string, label: string, checked: boolean, name = id) => {
  const box = h('input', { id, name, type: 'checkbox', checked });
  return { box, row: h('div', { class: 'check' }, box, h('label', { for: id }, label)) };
};
/** Digits become a number; anything else is sent as typed, for the service to refuse under its field. */
const minutesOf = (text: string) => (/^\s*[0-9]+\s*$/.test(text) ? Number(text) : text.trim());

export const organisationPolicyPage = async (app: AppContext) => {
  if (!app.isAdmin()) return h('div', {}, h('h1', {}, 'Organisation policy'), h('p', {}, 'Only owners and admins can see this page.'));
  const { policy, choices } = await app.get<PolicyAnswer>('/app/api/organisation/policy');

  const ttlOptions = h('input', { id: 'ttl-options', name: 'ttl_options_minutes', type: 'text', inputmode: 'numeric', autocomplete: 'off', value: policy.ttl_options_minutes.join(', ') });
  const defaultTtl = h('select', { id: 'default-ttl', name: 'default_ttl_minutes' });
  /** The default is chosen among the options as typed, kept when it is still one of them. */
  const offerDefaults = () => {
    const kept = defaultTtl.value || String(policy.default_ttl_minutes);
    const minutes = [...new Set(ttlOptions.value.split(/[\s,]+/).filter((part) => /^[0-9]+$/.test(part)).map(Number))].sort((a, b) => a - b);
    replaceChildren(defaultTtl, ...minutes.map((m) => option(String(m), `${ttlText(m)} (${m} minutes)`, String(m) === kept)));
  };
  offerDefaults();
  ttlOptions.addEventListener('input', offerDefaults);

  const modeSelect = (id: string, name: string, current: string) =>
    h('select', { id, name }, ...choices.verification_modes.map((m) => option(m, VERIFICATION_TEXT[m] ?? m, m === current)));
  const minimumVerification = modeSelect('minimum-verification', 'minimum_verification', policy.minimum_verification);
  const defaultVerification = modeSelect('default-verification', 'default_verification', policy.default_verification);
  const linkLifetime = h('input', { id: 'link-lifetime', name: 'link_lifetime_minutes', type: 'text', inputmode: 'numeric', autocomplete: 'off', value: String(policy.link_lifetime_minutes) });

  const statusBoxes = choices.close_statuses.map((status) => checkbox(`close-${status}`, status === 'closed' ? 'Closed' : 'Resolved', policy.ticket.close_statuses.includes(status), 'close_status'));
  statusBoxes.forEach(({ box }, index) => (box.value = choices.close_statuses[index]!));
  const closeStatuses = h(
    'fieldset',
    { id: 'close-statuses', 'aria-describedby': 'close-statuses-hint' },
    h('legend', {}, 'Ticket statuses that count as closed'),
    h('p', { class: 'hint', id: 'close-statuses-hint' }, 'When a linked ticket reaches one of these, its submitted credential is destroyed and the request completed.'),
    ...statusBoxes.map((s) => s.row),
  );
  const trust = checkbox('trust-unverified', 'Trust unverified ticket webhooks (posts without a signature may destroy credentials)', policy.ticket.trust_unverified_webhooks);
  const grace = h('input', { id: 'grace-minutes', name: 'grace_period_minutes', type: 'text', inputmode: 'numeric', autocomplete: 'off', value: String(policy.ticket.grace_period_minutes) });
  const revoke = checkbox('revoke-unsubmitted', 'Revoke requests not yet submitted when their ticket closes', policy.ticket.revoke_unsubmitted_on_close);
  const rotation = checkbox('rotation-signal', 'Recommend rotating the credential after each handover (credential.rotation_recommended)', policy.rotation_signal);
  const submit = h('button', { id: 'save-policy', type: 'submit' }, 'Save the policy');

  const form = h(
    'form',
    { id: 'policy-form', class: 'settings-form', novalidate: true },
    h(
      'fieldset',
      {},
      h('legend', {}, 'How long a submitted credential is kept'),
      field('TTL options (minutes, separated by commas)', ttlOptions, `What a new request may choose: up to ${choices.max_ttl_options} options, each ${choices.ttl_minutes.min} to ${choices.ttl_minutes.max} minutes; for example 60, 1440, 10080 (1 hour, 1 day, 7 days).`),
      field('Default TTL', defaultTtl, 'One of the options above.'),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'How the subject proves who they are'),
      field('Minimum verification', minimumVerification, 'No request may ask for less than this.'),
      field('Default verification', defaultVerification, 'What a new request starts with; at least the minimum.'),
    ),
    field('Link lifetime (minutes)', linkLifetime, `How long the subject’s link stays valid, ${choices.link_lifetime_minutes.min} to ${choices.link_lifetime_minutes.max} minutes.`),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Tickets'),
      closeStatuses,
      trust.row,
      field('Grace period after a ticket closes (minutes)', grace, `The credential is destroyed this long after the close, ${choices.grace_period_minutes.min} to ${choices.grace_period_minutes.max} minutes; 0 destroys it at once. Reopening the ticket within it cancels the destruction.`),
      revoke.row,
    ),
    rotation.row,
    h('p', { class: 'actions' }, submit),
  );

  const refusals = fieldMessages({
    ttl_options_minutes: ttlOptions,
    default_ttl_minutes: defaultTtl,
    minimum_verification: minimumVerification,
    default_verification: defaultVerification,
    link_lifetime_minutes: linkLifetime,
    'ticket.close_statuses': closeStatuses,
    'ticket.trust_unverified_webhooks': trust.box,
    'ticket.grace_period_minutes': grace,
    'ticket.revoke_unsubmitted_on_close': revoke.box,
    rotation_signal: rotation.box,
  });

  const bodyOf = () => ({
    ttl_options_minutes: ttlOptions.value.split(/[\s,]+/).filter(Boolean).map(minutesOf),
    default_ttl_minutes: Number(defaultTtl.value),
    minimum_verification: minimumVerification.value,
    default_verification: defaultVerification.value,
    link_lifetime_minutes: minutesOf(linkLifetime.value),
    ticket: {
      close_statuses: statusBoxes.filter((s) => s.box.checked).map((s) => s.box.value),
      trust_unverified_webhooks: trust.box.checked,
      grace_period_minutes: minutesOf(grace.value),
      revoke_unsubmitted_on_close: revoke.box.checked,
    },
    rotation_signal: rotation.box.checked,
  });

  const changesArea = h('section', { id: 'policy-changes-area', 'aria-live': 'polite' });
  const showChanges = (changed: Change[]) =>
    replaceChildren(
      changesArea,
      h('h2', {}, 'Last saved'),
      changed.length
        ? h('ul', { id: 'policy-changes' }, ...changed.map((c) => h('li', { 'data-field': c.field }, `${FIELD_TEXT[c.field] ?? c.field}: ${valueText(c.field, c.from)} → ${valueText(c.field, c.to)}`)))
        : h('p', { id: 'no-policy-changes' }, 'Nothing changed: the policy already said this.'),
    );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    void busy(submit, async () => {
      try {
        const saved = await app.post<{ policy: PolicyView; changed: Change[] }>('/app/api/organisation/policy', bodyOf());
        refusals.clear();
        showChanges(saved.changed);
        say(saved.changed.length ? `The policy is saved: ${saved.changed.length} ${saved.changed.length === 1 ? 'change' : 'changes'}.` : 'Nothing changed.');
      } catch (error) {
        const errors = refusedFields(error);
        if (errors) refusals.show(errors);
        else sayError(messageOf(error));
      }
    });
  });

  return h(
    'div',
    {},
    h('h1', {}, 'Organisation policy'),
    organisationTabs('policy'),
    h('p', {}, 'These rules apply to every new request of the organisation, whether made here, through the API or from a ticket. Requests already made keep the rules they were made with.'),
    form,
    changesArea,
  );
};
