/// <reference lib="dom" />
/**
 * The Members page's invitation form: name, email and role. The service adds the member and emails
 * them the same one-time sign-in link the sign-in page sends; on their first sign-in they set up
 * their key. Only an owner may invite an owner.
 *
 * Stable hooks: #invite-form #invite-name #invite-email #invite-role #invite; a field's refusal in
 * #<control id>-error
 */
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, h, say, sayError } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldErrors, refusedFields } from '../field-errors.ts';
import { newIdempotencyKey } from '../shown-once.ts';
import { maxChars } from '../../shared/max-chars.ts';

export const ROLE_TEXT: Record<string, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** The roles the signed-in member may give: an admin never makes an owner. */
export const grantableRoles = (app: AppContext) => (app.me().member.role === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin']);

export const inviteSection = (app: AppContext) => {
  const name = h('input', { id: 'invite-name', name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const email = h('input', { id: 'invite-email', name: 'email', type: 'email', maxlength: 254, autocomplete: 'off', spellcheck: 'false', required: true });
  const role = h('select', { id: 'invite-role', name: 'role' }, ...grantableRoles(app).map((value) => h('option', { value }, ROLE_TEXT[value])));
  const submit = h('button', { id: 'invite', type: 'submit' }, 'Invite');
  const form = h(
    'form',
    { id: 'invite-form', novalidate: true },
    field('Name', name),
    field('Email', email, 'The sign-in link goes here. It works once, for 15 minutes; after that they ask for a new one on the sign-in page.'),
    field('Role', role, 'Members make and open requests. Admins also manage members (not owners), clients, teams and settings. Owners can do everything.'),
    submit,
  );
  const errors = fieldErrors(form, { name: 'invite-name', email: 'invite-email', role: 'invite-role' });
  let last: { key: string; body: string } | null = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    const body = { name: name.value.trim(), email: email.value.trim(), role: role.value };
    const local: Record<string, string[]> = {};
    if (!body.name) local.name = ['Enter their name.'];
    if (!body.email) local.email = ['Enter their email address.'];
    if (Object.keys(local).length) return errors.show(local);
    errors.clear();
    void busy(submit, async () => {
      const text = JSON.stringify(body);
      if (last?.body !== text) last = { key: newIdempotencyKey(), body: text };
      let answer: { invitation_sent: boolean };
      try {
        answer = await app.post('/app/api/members', body, { 'Idempotency-Key': last.key });
      } catch (error) {
        const fields = refusedFields(error);
        return fields ? errors.show(fields) : sayError(messageOf(error));
      }
      await app.render({ keepMessages: true, focus: false });
      document.getElementById('invite-name')?.focus();
      say(
        answer.invitation_sent
          ? `${body.name} is invited: a sign-in link is on its way to ${body.email}.`
          : `${body.name} is added, but the email could not be sent. Ask them to request a sign-in link on the sign-in page.`,
      );
    });
  });
  return h('section', { 'aria-labelledby': 'invite-heading' }, h('h2', { id: 'invite-heading' }, 'Invite a member'), form);
};
