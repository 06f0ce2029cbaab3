/// <reference lib="dom" />
/**
 * Signing in to the member application (docs/web-api.md, Sessions): /app/sign-in asks for a work
 * email address and has a one-time link sent to it; the emailed link /app/sign-in#token=… trades
 * its token for the session (sign-in-link.ts). The token is in the fragment so it never reaches a server log.
 *
 * Stable hooks for automated tests:
 *   #sign-in-form #email #sign-in; after sending: #check-email; a refusal in #email-error
 */
import { call, messageOf } from '../../shared/api.ts';
import { busy, byId, clearMessages, field, focusHeading, h, replaceChildren, say, sayError } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldErrors, refusedFields } from '../field-errors.ts';
import { followSignInLink, noteSignInRequested } from './sign-in-link.ts';

/**
 * Shows the page in #content itself, as it works without a session. Answers the heading to focus,
 * or null when an emailed link signed the member in and the router has moved on.
 */
export const signInPage = async (app: AppContext): Promise<HTMLElement | null> => {
  const content = byId('content');
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = fragment.get('token');
  if (token) {
    history.replaceState(null, '', '/app/sign-in'); // the one-time token leaves the address bar and history
    if (await followSignInLink(app, token)) return null;
  }

  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'email', required: true, spellcheck: 'false' });
  const button = h('button', { id: 'sign-in', type: 'submit' }, 'Email me a sign-in link');
  // novalidate: the browser's own bubble is tied to nothing a screen reader keeps; the refusal goes
  // under the field instead, as the service's does.
  const form = h('form', { id: 'sign-in-form', novalidate: true }, field('Work email address', email), button);
  const errors = fieldErrors(form, { email: 'email' });
  const heading = h('h1', {}, 'Sign in');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    const address = email.value.trim();
    if (!address) return errors.show({ email: ['Enter your work email address.'] });
    if (!email.checkValidity()) return errors.show({ email: ['Must be an email address.'] });
    errors.clear();
    void busy(button, async () => {
      try {
        await call('POST', '/app/api/sign-in', { body: { email: address } });
        noteSignInRequested(address);
        const done = h('h2', { id: 'check-email' }, 'Check your email');
        replaceChildren(
          form,
          done,
          h('p', {}, `If ${address} belongs to a member, a sign-in link is on its way. It works once, for 15 minutes.`),
        );
        say('Check your email for a sign-in link.');
        focusHeading(done);
      } catch (error) {
        const fields = refusedFields(error);
        if (fields) errors.show(fields);
        else sayError(messageOf(error));
      }
    });
  });
  document.title = 'Sign in · Credential Handoff';
  replaceChildren(content, heading, h('p', {}, 'We will email you a link that signs you in. No password needed.'), form);
  return heading;
};
