/// <reference lib="dom" />
/**
 * Presets and templates (/app/organisation/presets, owners and admins; docs/web-api.md,
 * Organisation settings). A template is a named justification; a preset is a set of saved request
 * defaults (justification, TTL, verification, template, recipients, delivery, attachments) with
 * what a ticket trigger does for the requester. Saving a preset under a slug it already has
 * replaces it. The default presets say which preset a ticket trigger uses when its post names
 * none: the client's, else the organisation's.
 *
 * Stable hooks for automated tests:
 *   defaults:  #default-presets, #org-default-preset #save-org-default, per client
 *              #client-default-<client id> #save-client-default-<client id>
 *   presets:   #presets (table), rows tr[data-slug], #edit-preset-<slug>, #no-presets
 *   preset:    #preset-form #preset-slug #preset-name #preset-justification #preset-ttl
 *              #preset-verification #preset-template #preset-recipients (fieldset, input[data-email])
 *              #preset-delivery #preset-attachments #preset-requester-from-ticket #preset-fallback
 *              #save-preset #new-preset
 *   a plan without presets: #presets-plan-note instead of the default presets and presets
 *   templates: #templates (table), rows tr[data-template-id], #no-templates,
 *              #template-form #template-name #template-justification #create-template
 *   a field's refusal in #<control id>-error
 */
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, focusHeading, h, say, sayError, tableWrap } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldMessages, refusedFields } from '../field-errors.ts';
import { organisationTabs } from '../organisation-tabs.ts';
import { ttlText, VERIFICATION_TEXT } from '../request-words.ts';
import type { PresetDefaults as Defaults } from '../shapes.ts';
import { presetsNotIncluded } from '../plan-notes.ts';
import { newIdempotencyKey } from '../shown-once.ts';
import { maxChars } from '../../shared/max-chars.ts';

interface PresetView {
  slug: string;
  name: string;
  defaults: Defaults;
  requester_from_ticket: boolean;
  fallback_requester: string | null;
}
interface TemplateView {
  id: string;
  name: string;
  justification: string | null;
}
interface Settings {
  data: PresetView[];
  /** Whether the organisation's plan includes presets; without it only templates are offered. */
  preset_access: boolean;
  default_preset: string | null;
  clients: Array<{ id: string; name: string; default_preset: string | null }>;
  templates: TemplateView[];
  members: Array<{ name: string; email: string }>;
  choices: { ttl_options_minutes: number[]; verification_modes: string[]; delivery_methods: string[] };
}

const DELIVERY_TEXT: Record<string, string> = {
  none: 'The requester sends the link',
  email: 'Email the link to the subject',
  sms: 'Text the link to the subject',
  ticket_reply: 'Reply in the ticket (a ticket trigger sends nothing)',
};
const ATTACHMENTS_TEXT: Record<string, string> = { '': 'Not set (the request decides)', true: 'Allowed', false: 'Not allowed' };

const option = (value: string, text: string, selected = false) => h('option', { value, selected }, text);
const select = (id: string, unset: string, choices: Array<[string, string]>) => h('select', { id, name: id }, option('', unset, true), ...choices.map(([value, text]) => option(value, text)));

/** After a change: the page again, with the change in it, and the live region saying so. */
const rerenderSaying = async (app: AppContext, message: string) => {
  await app.render({ keepMessages: true, focus: true });
  say(message);
};

/** A POST whose refusal goes under its fields; anything else in the error region. */
const submitWith = (button: HTMLButtonElement, refusals: ReturnType<typeof fieldMessages>, send: () => Promise<void>) =>
  busy(button, async () => {
    clearMessages();
    refusals.clear();
    try {
      await send();
    } catch (error) {
      const errors = refusedFields(error);
      if (errors) refusals.show(errors);
      else sayError(messageOf(error));
    }
  });

export const organisationPresetsPage = async (app: AppContext) => {
  if (!app.isAdmin()) return h('div', {}, h('h1', {}, 'Presets and templates'), h('p', {}, 'Only owners and admins can see this page.'));
  const settings = await app.get<Settings>('/app/api/presets');
  return h(
    'div',
    {},
    h('h1', {}, 'Presets and templates'),
    organisationTabs('presets'),
    h('p', {}, 'A preset fills in a new request’s defaults: pick it on the new-request form, or name it in a ticket’s link (/app/requests/new?preset=<slug>) or trigger. A template is a named justification.'),
    ...(settings.preset_access
      ? [defaultPresetsSection(app, settings), presetsSection(app, settings)]
      : [h('section', { id: 'presets-area', 'aria-labelledby': 'presets-heading' }, h('h2', { id: 'presets-heading' }, 'Presets'), presetsNotIncluded('presets-plan-note'))]),
    templatesSection(app, settings),
  );
};

// --- Default presets -------------------------------------------------------------------------------

const defaultPresetsSection = (app: AppContext, settings: Settings) => {
  const presetChoices = settings.data.map((p): [string, string] => [p.slug, `${p.name} (${p.slug})`]);
  const row = (id: string, label: string, clientId: string | null, current: string | null) => {
    const chosen = select(id, 'None', presetChoices);
    chosen.value = current ?? '';
    const save = h('button', { id: `save-${id.replace('-preset', '')}`, type: 'submit', class: 'secondary', 'aria-label': `Save the default preset of ${clientId ? label : 'the organisation'}` }, 'Save');
    const form = h('form', { class: 'settings-form', novalidate: true }, h('div', { class: 'field' }, h('label', { for: id }, label), h('div', { class: 'with-button' }, chosen, save)));
    const refusals = fieldMessages({ preset: chosen, client_id: chosen });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void submitWith(save, refusals, async () => {
        await app.post('/app/api/default-preset', { client_id: clientId, preset: chosen.value || null });
        await rerenderSaying(app, chosen.value ? `The default preset of ${clientId ? label : 'the organisation'} is now ${chosen.value}.` : `${clientId ? label : 'The organisation'} has no default preset now.`);
      });
    });
    return form;
  };
  return h(
    'section',
    { id: 'default-presets', 'aria-labelledby': 'default-presets-heading' },
    h('h2', { id: 'default-presets-heading' }, 'Default presets'),
    h('p', {}, 'A ticket trigger that names no preset uses its client’s default, else the organisation’s, else the policy’s defaults.'),
    row('org-default-preset', 'The organisation’s default preset', null, settings.default_preset),
    ...settings.clients.map((client) => row(`client-default-${client.id}`, `Default preset of ${client.name}`, client.id, client.default_preset)),
  );
};

// --- Presets -----------------------------------------------------------------------------------------

const defaultsText = (defaults: Defaults, templates: TemplateView[]) =>
  [
    defaults.ttl_minutes !== undefined ? `Kept ${ttlText(defaults.ttl_minutes)}` : null,
    defaults.verification_mode ? `Verification: ${VERIFICATION_TEXT[defaults.verification_mode] ?? defaults.verification_mode}` : null,
    defaults.template_id ? `Template: ${templates.find((t) => t.id === defaults.template_id)?.name ?? defaults.template_id}` : null,
    defaults.recipients?.length ? `Recipients: ${defaults.recipients.join(', ')}` : null,
    defaults.delivery ? `Delivery: ${DELIVERY_TEXT[defaults.delivery.method] ?? defaults.delivery.method}` : null,
    defaults.allow_attachments !== undefined ? `Attachments ${defaults.allow_attachments ? 'allowed' : 'not allowed'}` : null,
  ].filter((line): line is string => Boolean(line));

const presetsSection = (app: AppContext, settings: Settings) => {
  const form = presetForm(app, settings);
  const list = settings.data.length
    ? tableWrap(
        h(
          'table',
          { id: 'presets' },
          h('caption', {}, 'Presets, by name'),
          h('thead', {}, h('tr', {}, ...['Preset', 'Defaults', 'From a ticket', 'Action'].map((text) => h('th', { scope: 'col' }, text)))),
          h(
            'tbody',
            {},
            ...settings.data.map((preset) => {
              const edit = h('button', { id: `edit-preset-${preset.slug}`, type: 'button', class: 'secondary', 'aria-label': `Edit the preset ${preset.name}` }, 'Edit');
              edit.addEventListener('click', () => form.edit(preset));
              return h(
                'tr',
                { 'data-slug': preset.slug },
                h('th', { scope: 'row' }, preset.name, h('span', { class: 'sub' }, h('code', {}, preset.slug))),
                h('td', {}, h('ul', { class: 'plain-list' }, ...defaultsText(preset.defaults, settings.templates).map((line) => h('li', {}, line)))),
                h('td', {}, preset.requester_from_ticket ? 'Requester from the ticket' : 'Fixed requester', h('span', { class: 'sub' }, `Fallback: ${preset.fallback_requester ?? 'none'}`)),
                h('td', {}, edit),
              );
            }),
          ),
        ),
      )
    : h('p', { id: 'no-presets' }, 'No presets yet. Create one below.');
  return h('section', { id: 'presets-area', 'aria-labelledby': 'presets-heading' }, h('h2', { id: 'presets-heading' }, 'Presets'), list, form.section);
};

const presetForm = (app: AppContext, settings: Settings) => {
  const slug = h('input', { id: 'preset-slug', name: 'slug', type: 'text', maxlength: 40, autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', required: true });
  const name = h('input', { id: 'preset-name', name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const justification = h('textarea', { id: 'preset-justification', name: 'justification', rows: 3, ...maxChars(1000) });
  const ttl = select('preset-ttl', 'Not set (the policy’s default)', settings.choices.ttl_options_minutes.map((m): [string, string] => [String(m), ttlText(m)]));
  const verification = select('preset-verification', 'Not set (the policy’s default)', settings.choices.verification_modes.map((m): [string, string] => [m, VERIFICATION_TEXT[m] ?? m]));
  const template = select('preset-template', 'None', settings.templates.map((t): [string, string] => [t.id, t.name]));
  const recipientBoxes = settings.members.map((member, index) => {
    const box = h('input', { id: `preset-recipient-${index}`, type: 'checkbox', value: member.email, 'data-email': member.email });
    return { box, row: h('div', { class: 'check' }, box, h('label', { for: box.id }, `${member.name} · ${member.email}`)) };
  });
  const recipients = h('fieldset', { id: 'preset-recipients', class: 'checks' }, h('legend', {}, 'Recipients (optional)'), ...recipientBoxes.map((r) => r.row));
  const delivery = select('preset-delivery', 'Not set (the request decides)', settings.choices.delivery_methods.map((m): [string, string] => [m, DELIVERY_TEXT[m] ?? m]));
  const attachments = h('select', { id: 'preset-attachments', name: 'allow_attachments' }, ...Object.entries(ATTACHMENTS_TEXT).map(([value, text]) => option(value, text, value === '')));
  const fromTicket = h('input', { id: 'preset-requester-from-ticket', name: 'requester_from_ticket', type: 'checkbox' });
  const fallback = select('preset-fallback', 'None', settings.members.map((m): [string, string] => [m.email, `${m.name} · ${m.email}`]));
  const save = h('button', { id: 'save-preset', type: 'submit' }, 'Save the preset');
  const clear = h('button', { id: 'new-preset', type: 'button', class: 'secondary' }, 'Start a new preset');
  const heading = h('h3', { id: 'preset-form-heading' }, 'Create a preset');

  const form = h(
    'form',
    { id: 'preset-form', class: 'settings-form', novalidate: true },
    field('Slug', slug, 'Lower-case letters, digits and dashes, for links and ticket triggers. Saving under a slug that exists replaces that preset.'),
    field('Name', name),
    field('Justification (optional)', justification, 'The subject sees this. 10 to 1000 characters.'),
    field('Credential kept for', ttl),
    field('Verification', verification, 'Only modes that meet the policy’s minimum.'),
    field('Template', template),
    recipients,
    field('Sending the link', delivery),
    field('Attachments', attachments),
    h('div', { class: 'check' }, fromTicket, h('label', { for: fromTicket.id }, 'A ticket trigger takes the requester from the ticket')),
    field('Fallback requester', fallback, 'The requester of a ticket trigger when the ticket names none, or when the preset does not take it from the ticket.'),
    h('p', { class: 'actions with-button' }, save, clear),
  );
  const refusals = fieldMessages({
    slug,
    name,
    'defaults.justification': justification,
    'defaults.ttl_minutes': ttl,
    'defaults.verification_mode': verification,
    'defaults.template_id': template,
    'defaults.recipients': recipients,
    'defaults.delivery': delivery,
    'defaults.allow_attachments': attachments,
    requester_from_ticket: fromTicket,
    fallback_requester: fallback,
  });

  const fill = (preset: PresetView | null) => {
    const d = preset?.defaults ?? {};
    slug.value = preset?.slug ?? '';
    name.value = preset?.name ?? '';
    justification.value = d.justification ?? '';
    ttl.value = d.ttl_minutes === undefined ? '' : String(d.ttl_minutes);
    verification.value = d.verification_mode ?? '';
    template.value = d.template_id ?? '';
    for (const { box } of recipientBoxes) box.checked = d.recipients?.includes(box.value) ?? false;
    delivery.value = d.delivery?.method ?? '';
    attachments.value = d.allow_attachments === undefined ? '' : String(d.allow_attachments);
    fromTicket.checked = preset?.requester_from_ticket ?? false;
    fallback.value = preset?.fallback_requester ?? '';
    heading.textContent = preset ? `Edit the preset ${preset.name}` : 'Create a preset';
    refusals.clear();
  };
  clear.addEventListener('click', () => {
    fill(null);
    slug.focus();
  });

  const bodyOf = () => {
    const chosen = recipientBoxes.filter((r) => r.box.checked).map((r) => r.box.value);
    const defaults: Defaults = {
      ...(justification.value.trim() ? { justification: justification.value.trim() } : {}),
      ...(ttl.value ? { ttl_minutes: Number(ttl.value) } : {}),
      ...(verification.value ? { verification_mode: verification.value } : {}),
      ...(template.value ? { template_id: template.value } : {}),
      ...(chosen.length ? { recipients: chosen } : {}),
      ...(delivery.value ? { delivery: { method: delivery.value } } : {}),
      ...(attachments.value ? { allow_attachments: attachments.value === 'true' } : {}),
    };
    return { slug: slug.value.trim(), name: name.value.trim(), defaults, requester_from_ticket: fromTicket.checked, fallback_requester: fallback.value || null };
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submitWith(save, refusals, async () => {
      const saved = await app.post<{ preset: PresetView; replaced: boolean }>('/app/api/presets', bodyOf());
      await rerenderSaying(app, `The preset ${saved.preset.name} (${saved.preset.slug}) is ${saved.replaced ? 'saved' : 'created'}.`);
    });
  });

  const section = h('section', { id: 'preset-editor', 'aria-labelledby': 'preset-form-heading' }, heading, form);
  return {
    section,
    /** Fills the form with a preset to change it, and takes the keyboard there. */
    edit: (preset: PresetView) => {
      fill(preset);
      focusHeading(heading);
      say(`Editing the preset ${preset.name}: change its fields, then save.`);
    },
  };
};

// --- Templates ------------------------------------------------------------------------------------------

const templatesSection = (app: AppContext, settings: Settings) => {
  const list = settings.templates.length
    ? tableWrap(
        h(
          'table',
          { id: 'templates' },
          h('caption', {}, 'Templates, by name'),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Template'), h('th', { scope: 'col' }, 'Justification'))),
          h('tbody', {}, ...settings.templates.map((t) => h('tr', { 'data-template-id': t.id }, h('th', { scope: 'row' }, t.name), h('td', { class: 'note' }, t.justification ?? '—')))),
        ),
      )
    : h('p', { id: 'no-templates' }, 'No templates yet. Create one below.');

  const name = h('input', { id: 'template-name', name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const justification = h('textarea', { id: 'template-justification', name: 'justification', rows: 3, ...maxChars(1000) });
  const create = h('button', { id: 'create-template', type: 'submit' }, 'Create the template');
  const form = h(
    'form',
    { id: 'template-form', class: 'settings-form', novalidate: true },
    field('Name', name),
    field('Justification (optional)', justification, 'Filled into a request that uses the template and has none of its own. 10 to 1000 characters.'),
    h('p', { class: 'actions' }, create),
  );
  const refusals = fieldMessages({ name, justification });
  /** The same template again reuses its Idempotency-Key, so a retry cannot create two. */
  let lastAttempt: { key: string; body: string } | null = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = { name: name.value.trim(), justification: justification.value.trim() || null };
    const text = JSON.stringify(body);
    if (lastAttempt?.body !== text) lastAttempt = { key: newIdempotencyKey(), body: text };
    const key = lastAttempt.key;
    void submitWith(create, refusals, async () => {
      const created = await app.post<TemplateView>('/app/api/templates', body, { 'Idempotency-Key': key });
      await rerenderSaying(app, `The template ${created.name} is created.`);
    });
  });
  return h(
    'section',
    { id: 'templates-area', 'aria-labelledby': 'templates-heading' },
    h('h2', { id: 'templates-heading' }, 'Templates'),
    list,
    h('h3', {}, 'Create a template'),
    form,
  );
};
