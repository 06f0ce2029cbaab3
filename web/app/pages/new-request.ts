/// <reference lib="dom" />
/**
 * A new request, made in the technician's browser (docs/web-api.md, New request): /app/requests/new,
 * also reached from a helpdesk's ticket screen as /app/requests/new?ticket=<ticket id>&preset=<slug>
 * (the ticket and the preset's defaults filled in, every field still editable).
 *
 * Creating takes two steps. First this browser fetches the recipients' public keys, computes
 * each fingerprint itself and shows them; then, on confirmation, it computes the recipient
 * commitment from those keys and sends it with the request. The service makes the request only
 * when the commitment matches the recipients it resolves, and the subject's page checks it again.
 * The link and the challenge code are shown once, each in a box of its own.
 *
 * Stable hooks for automated tests:
 *   form:     #request-form #subject-name #subject-email #subject-phone #justification
 *             #recipients (fieldset, input[data-email]) #teams (fieldset) #client #template #preset
 *             #ttl #verification #allow-attachments #delivery #ticket-ref #ticket-url #check-recipients;
 *             on a plan without presets, #preset-plan-note instead of #preset (when there is one to miss)
 *   confirm:  #confirm-recipients (li[data-membership-id] with .fingerprint) #create-request #change-recipients
 *   created:  #request-created #delivery-status (when the service sent the link) #request-link #copy-link
 *             #challenge-code #copy-code #computed-by #view-request;
 *             a replayed create shows #request-replayed; field errors #form-errors
 */
import { commitmentOf, fingerprintOf } from '../../crypto/identity.ts';
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, fingerprintCode, focusHeading, h, replaceChildren, say, sayError } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldMessages, refusedFields } from '../field-errors.ts';
import { presetsNotIncluded } from '../plan-notes.ts';
import { newIdempotencyKey, shownOnce } from '../shown-once.ts';
import { ttlText, VERIFICATION_TEXT } from '../request-words.ts';
import type { PresetDefaults } from '../shapes.ts';
import { maxChars } from '../../shared/max-chars.ts';

interface Options {
  policy: { ttl_options_minutes: number[]; default_ttl_minutes: number; default_verification: string; verification_modes: string[] };
  default_client_id: string;
  clients: Array<{ id: string; name: string }>;
  teams: Array<{ id: string; name: string }>;
  templates: Array<{ id: string; name: string; justification: string | null }>;
  presets: Array<{ slug: string; name: string; defaults: PresetDefaults }>;
  /** Whether the organisation's plan includes presets; without it the form offers none and says why. */
  preset_access: boolean;
  members: Array<{ membership_id: string; name: string; email: string; key_state: string | null }>;
}

interface KeyedRecipient {
  membership_id: string;
  label: string;
  email: string;
  public_key: string;
  fingerprint: string;
}

interface Created {
  request: { id: string };
  link: string | null;
  challenge_code: string | null;
  commit: string;
  commitment: { computed_by: string; note: string };
  excluded_recipients: string[];
  delivery?: Delivery | null;
}

interface Delivery {
  method: string;
  status?: 'sent' | 'failed' | 'unconfirmed';
  reason?: string;
}

const SENT_BY: Record<string, [done: string, doing: string]> = {
  email: ['emailed the link to the subject', 'email the link'],
  sms: ['texted the link to the subject', 'text the link'],
  ticket_reply: ['posted the link in the ticket', 'post the link in the ticket'],
};

/**
 * What became of the link the service was asked to send (the creation's `delivery`), or null when
 * the technician sends it: the page must not ask them to send a link that went out, nor hide one
 * that did not.
 */
export const deliveryNote = (delivery: Delivery | null | undefined): { text: string; failed: boolean } | null => {
  if (!delivery || delivery.method === 'none') return null;
  const [done, doing] = SENT_BY[delivery.method] ?? ['sent the link', 'send the link'];
  // The service's reason says what failed and to send the link another way.
  if (delivery.status === 'failed') return { text: delivery.reason ?? `The service could not ${doing}: send the link to the subject another way.`, failed: true };
  if (delivery.status === 'unconfirmed')
    return { text: `The service has not confirmed that it could ${doing}. If the subject does not get it, send the link another way.`, failed: true };
  return { text: `The service ${done}: you need not send it again. Give the subject the code another way (by phone or in person).`, failed: false };
};

const DELIVERY_TEXT: Record<string, string> = { none: 'I will send the link myself', email: 'Email it to the subject', sms: 'Text it to the subject' };

const option = (value: string, text: string, selected: boolean) => h('option', { value, selected }, text);
const input = (id: string, attributes: Parameters<typeof h>[1] = {}) => h('input', { id, name: id, type: 'text', autocomplete: 'off', ...attributes });

export const newRequestPage = async (app: AppContext) => {
  const options = await app.get<Options>('/app/api/request-options');
  const me = app.me().member;
  const query = new URLSearchParams(location.search);
  const presets = options.preset_access ? options.presets : [];
  const presetNamed = query.get('preset');

  const subjectName = input('subject-name', { ...maxChars(120), required: true });
  const subjectEmail = input('subject-email', { type: 'email', maxlength: 320 });
  const subjectPhone = input('subject-phone', { type: 'tel', maxlength: 40 });
  const justification = h('textarea', { id: 'justification', name: 'justification', rows: 3, ...maxChars(1000) });
  const client = h('select', { id: 'client', name: 'client_id' }, ...options.clients.map((c) => option(c.id, c.name, c.id === options.default_client_id)));
  const template = h('select', { id: 'template', name: 'template_id' }, option('', 'None', true), ...options.templates.map((t) => option(t.id, t.name, false)));
  const preset = h('select', { id: 'preset', name: 'preset' }, option('', 'None', true), ...presets.map((p) => option(p.slug, p.name, false)));
  const ttl = h('select', { id: 'ttl', name: 'ttl_minutes' }, ...options.policy.ttl_options_minutes.map((m) => option(String(m), ttlText(m), m === options.policy.default_ttl_minutes)));
  const verification = h('select', { id: 'verification', name: 'verification_mode' }, ...options.policy.verification_modes.map((m) => option(m, VERIFICATION_TEXT[m] ?? m, m === options.policy.default_verification)));
  const attachments = h('input', { id: 'allow-attachments', name: 'allow_attachments', type: 'checkbox' });
  const delivery = h('select', { id: 'delivery', name: 'delivery' }, ...Object.entries(DELIVERY_TEXT).map(([method, text]) => option(method, text, method === 'none')));
  const ticketRef = input('ticket-ref', { ...maxChars(120), spellcheck: false });
  const ticketUrl = input('ticket-url', { type: 'url', maxlength: 2048, spellcheck: false });

  const recipientBoxes = options.members
    .filter((m) => m.membership_id !== me.membership_id)
    .map((m) => {
      const box = h('input', { id: `recipient-${m.membership_id}`, type: 'checkbox', value: m.email, 'data-email': m.email, disabled: m.key_state !== 'verified' });
      const note = m.key_state === 'verified' ? '' : m.key_state === 'refused' ? ' (key refused)' : m.key_state ? ' (key awaiting approval)' : ' (no key set up yet)';
      return { box, row: h('div', { class: 'check' }, box, h('label', { for: box.id }, `${m.name} · ${m.email}${note}`)) };
    });
  const teamBoxes = options.teams.map((t) => {
    const box = h('input', { id: `team-${t.id}`, type: 'checkbox', value: t.id });
    return { box, row: h('div', { class: 'check' }, box, h('label', { for: box.id }, t.name)) };
  });

  const applyPreset = (defaults: PresetDefaults) => {
    if (defaults.justification) justification.value = defaults.justification;
    if (defaults.ttl_minutes !== undefined) ttl.value = String(defaults.ttl_minutes);
    if (defaults.verification_mode) verification.value = defaults.verification_mode;
    if (defaults.template_id) template.value = defaults.template_id;
    if (defaults.allow_attachments !== undefined) attachments.checked = defaults.allow_attachments;
    if (defaults.delivery) delivery.value = defaults.delivery.method;
    if (defaults.recipients) for (const { box } of recipientBoxes) box.checked = !box.disabled && defaults.recipients.includes(box.value);
  };
  preset.addEventListener('change', () => {
    const chosen = presets.find((p) => p.slug === preset.value);
    if (chosen) {
      applyPreset(chosen.defaults);
      say(`The preset ${chosen.name} filled in its defaults; change any of them as needed.`);
    }
  });
  template.addEventListener('change', () => {
    const chosen = options.templates.find((t) => t.id === template.value);
    if (chosen?.justification && !justification.value.trim()) justification.value = chosen.justification;
  });

  // The deep link from a ticket: the ticket, then the preset's defaults, all editable.
  const ticketFromLink = query.get('ticket');
  if (ticketFromLink) ticketRef.value = ticketFromLink.slice(0, 120);
  const presetFromLink = presets.find((p) => p.slug === presetNamed);
  if (presetFromLink) {
    preset.value = presetFromLink.slug;
    applyPreset(presetFromLink.defaults);
  } else if (presetNamed && options.preset_access) sayError(`No preset is called “${presetNamed}”; the form starts empty.`);

  const check = h('button', { id: 'check-recipients', type: 'submit' }, 'Check the recipients');
  const recipientsFieldset = h(
    'fieldset',
    { id: 'recipients', class: 'checks' },
    h('legend', {}, 'Who can read it'),
    h('p', { class: 'hint' }, `You (${me.email ?? me.name ?? 'the requester'}) always can, as the requester. Only members with a verified key can be chosen.`),
    ...recipientBoxes.map((r) => r.row),
  );
  const teamsFieldset = teamBoxes.length ? h('fieldset', { id: 'teams', class: 'checks' }, h('legend', {}, 'Teams (optional)'), ...teamBoxes.map((t) => t.row)) : null;
  const confirmArea = h('div', { id: 'confirm-area' });
  const form = h(
    'form',
    { id: 'request-form', novalidate: true },
    h('fieldset', { class: 'checks' }, h('legend', {}, 'Who sends the credential'), field('Subject’s name', subjectName), field('Subject’s email (optional)', subjectEmail, 'Needed to email a code or the link.'), field('Subject’s phone (optional)', subjectPhone, 'Needed to text the link.')),
    field('Why it is needed', justification, 'The subject sees this. 10 to 1000 characters.'),
    recipientsFieldset,
    teamsFieldset,
    field('Client', client),
    presets.length
      ? field('Preset', preset, 'Fills in its defaults; you can change them.')
      : !options.preset_access && (options.presets.length > 0 || presetNamed)
        ? presetsNotIncluded('preset-plan-note')
        : null,
    options.templates.length ? field('Template', template) : null,
    field('Keep the credential for', ttl, 'Counted from when the subject sends it; then it is destroyed, whether or not it was revealed.'),
    field('How the subject proves who they are', verification),
    h('div', { class: 'check' }, attachments, h('label', { for: 'allow-attachments' }, 'Let the subject attach files')),
    field('Sending the link', delivery),
    field('Ticket reference (optional)', ticketRef, 'Closing this ticket can destroy the credential, as your organisation’s policy says.'),
    field('Ticket link (optional)', ticketUrl),
    check,
  );

  // The service's refusals, each under the control it is about (the controls this form shows).
  const refusals = fieldMessages({
    subject_name: subjectName,
    subject_email: subjectEmail,
    subject_phone: subjectPhone,
    justification,
    recipients: recipientsFieldset,
    requester: recipientsFieldset,
    ...(teamsFieldset ? { teams: teamsFieldset } : {}),
    client_id: client,
    ...(presets.length ? { preset } : {}),
    ...(options.templates.length ? { template_id: template } : {}),
    ttl_minutes: ttl,
    verification_mode: verification,
    allow_attachments: attachments,
    delivery,
    ticket_ref: ticketRef,
    ticket_url: ticketUrl,
  });

  const bodyOf = () => {
    const recipients = recipientBoxes.filter((r) => r.box.checked).map((r) => r.box.value);
    const teams = teamBoxes.filter((t) => t.box.checked).map((t) => t.box.value);
    return {
      subject_name: subjectName.value.trim(),
      ...(subjectEmail.value.trim() ? { subject_email: subjectEmail.value.trim() } : {}),
      ...(subjectPhone.value.trim() ? { subject_phone: subjectPhone.value.trim() } : {}),
      justification: justification.value.trim(),
      recipients: [me.email!, ...recipients],
      ...(teams.length ? { teams } : {}),
      client_id: client.value,
      ...(template.value ? { template_id: template.value } : {}),
      ttl_minutes: Number(ttl.value),
      verification_mode: verification.value,
      allow_attachments: attachments.checked,
      delivery: { method: delivery.value },
      ...(ticketRef.value.trim() ? { ticket_ref: ticketRef.value.trim() } : {}),
      ...(ticketUrl.value.trim() ? { ticket_url: ticketUrl.value.trim() } : {}),
    };
  };

  /** A 422's fields under their controls (the first refused one focused); any other failure in the alert region. */
  const showErrors = (failure: unknown) => {
    const errors = refusedFields(failure);
    if (errors) refusals.show(errors);
    else sayError(messageOf(failure));
  };

  let lastAttempt: { key: string; body: string } | null = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    refusals.clear();
    if (!subjectName.value.trim()) return refusals.show({ subject_name: ['Enter the subject’s name.'] });
    void busy(check, async () => {
      const body = bodyOf();
      let keyed: KeyedRecipient[];
      try {
        const query = new URLSearchParams({ recipients: body.recipients.join(',') });
        if (body.teams) query.set('teams', body.teams.join(','));
        const answer = await app.get<{ recipients: Array<Omit<KeyedRecipient, 'fingerprint'>> }>(`/app/api/recipient-keys?${query}`);
        // The fingerprints are computed here, from the keys as served: what is shown is what gets committed to.
        keyed = await Promise.all(answer.recipients.map(async (r) => ({ ...r, fingerprint: await fingerprintOf(r.public_key) })));
      } catch (error) {
        return showErrors(error);
      }
      const commit = await commitmentOf(keyed.map((r) => ({ membershipId: r.membership_id, publicKey: r.public_key })));
      replaceChildren(confirmArea, confirmSection(keyed, async (create) => {
        const text = JSON.stringify({ ...body, commit });
        if (lastAttempt?.body !== text) lastAttempt = { key: newIdempotencyKey(), body: text };
        let created: Created;
        try {
          created = await app.post<Created>('/app/api/requests', { ...body, commit }, { 'Idempotency-Key': lastAttempt.key });
        } catch (error) {
          return showErrors(error);
        }
        const result = created.link ? createdSection(created) : replayedSection(created);
        replaceChildren(form.parentElement!, h('h1', {}, 'New request'), result);
        // The address becomes the request's: a reload (or a bookmark) lands on the request that
        // now exists, never on an empty form that would make it again.
        history.replaceState(null, '', `/app/requests/${created.request.id}`);
        focusHeading(result.querySelector('h2')!);
        say(created.link ? 'The request is made. Copy the link (and the code) now: they are shown only once.' : 'This request was already made.');
      }));
      focusHeading(confirmArea.querySelector('h2')!);
    });
  });

  return h(
    'div',
    {},
    h('h1', {}, 'New request'),
    h('p', {}, 'Ask someone for a credential. They get a link; what they send is encrypted in their browser to the keys of the people you choose, and only those people can open it.'),
    form,
    confirmArea,
  );
};

/** The recipients as this browser will commit to them, with the fingerprints it computed. */
const confirmSection = (recipients: KeyedRecipient[], create: (button: HTMLButtonElement) => Promise<void>) => {
  const createButton = h('button', { id: 'create-request', type: 'button' }, 'Create the request');
  createButton.addEventListener('click', () => busy(createButton, () => create(createButton)));
  const change = h('button', { id: 'change-recipients', type: 'button', class: 'secondary' }, 'Change the recipients');
  // Back to the choice itself: the first recipient that can be chosen, with this confirmation gone.
  change.addEventListener('click', () => {
    const first = document.querySelector<HTMLInputElement>('#recipients input:not([disabled])');
    replaceChildren(document.getElementById('confirm-area')!);
    (first ?? document.getElementById('check-recipients'))?.focus();
  });
  return h(
    'section',
    { id: 'confirm-recipients', 'aria-labelledby': 'confirm-heading' },
    h('h2', { id: 'confirm-heading' }, 'These people will be able to read it'),
    h('p', {}, 'Compare each fingerprint with the one the person sees on their My key page if you have any doubt: this browser computed them from the keys the service sent.'),
    h(
      'ul',
      { class: 'recipients' },
      ...recipients.map((r) => h('li', { 'data-membership-id': r.membership_id }, h('span', {}, `${r.label} · ${r.email}`), ' ', fingerprintCode(r.fingerprint))),
    ),
    h('div', { class: 'actions' }, createButton, change),
  );
};

const createdSection = (created: Created) => {
  const note = deliveryNote(created.delivery);
  return h(
    'section',
    { id: 'request-created', 'aria-labelledby': 'created-heading' },
    h('h2', { id: 'created-heading' }, 'Send the link to the subject'),
    note ? h('p', { id: 'delivery-status', class: note.failed ? 'error' : 'status' }, note.text) : null,
    h(
      'p',
      { class: 'notice' },
      h('strong', {}, 'Copy them now: the link and the code are shown only this once. '),
      // A link the service sent needs no second sending; the note above says how to give the code.
      note && !note.failed ? null : 'Send the link by one channel, and give the code another way (by phone or in person), never in the same message.',
    ),
    shownOnce({ id: 'request-link', label: 'The link', value: created.link!, rows: 3, copyId: 'copy-link', copyText: 'Copy the link', copied: 'The link is copied.' }),
    created.challenge_code
      ? shownOnce({ id: 'challenge-code', label: 'The code to give the subject', value: created.challenge_code, copyId: 'copy-code', copyText: 'Copy the code', copied: 'The code is copied.' })
      : null,
    h('p', { id: 'computed-by', class: 'hint' }, created.commitment.computed_by === 'browser' ? 'The recipient check in the link was computed by this browser.' : 'The recipient check in the link was computed by the service.'),
    created.excluded_recipients.length ? h('p', { class: 'hint' }, `Left out because their key awaits approval: ${created.excluded_recipients.join(', ')}.`) : null,
    h('p', {}, h('a', { id: 'view-request', href: `/app/requests/${created.request.id}` }, 'Go to the request'), ' · ', h('a', { href: '/app/requests/new' }, 'Make another request')),
  );
};

const replayedSection = (created: Created) =>
  h(
    'section',
    { id: 'request-replayed', 'aria-labelledby': 'replayed-heading' },
    h('h2', { id: 'replayed-heading' }, 'This request was already made'),
    h('p', {}, 'Your first attempt reached the service, but its answer did not reach this page, and the link cannot be shown a second time. Revoke that request and make a new one.'),
    h('p', {}, h('a', { id: 'view-request', href: `/app/requests/${created.request.id}` }, 'Go to the request')),
  );
