/// <reference lib="dom" />
/**
 * How the subject's page ends: an unknown link, a closed one (with the service's reason), a
 * commitment that does not match (do not send, report it), and the credential sent. Also the
 * report form, offered beside the steps and on a refusal.
 */
import { ApiFailure, messageOf } from '../shared/api.ts';
import { busy, byId, clearMessages, field, focusHeading, formatTime, h, replaceChildren, say, sayError } from '../shared/dom.ts';
import { content, linkCall, state, type SubjectRequest } from './link.ts';

/**
 * A page that ends the flow says so in its title and its h1 (a screen reader announces the title;
 * the h1 is what a person reads first), and the h1 takes the focus. The section below it has no
 * heading of its own and nothing goes to the status region: either would say the same again.
 */
export const endPage = (heading: string) => {
  document.title = heading;
  const title = byId('page-title');
  title.textContent = heading;
  clearMessages(); // what the page said before (progress, a wrong code) is no longer the news
  focusHeading(title);
};

export const showInvalid = () => {
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'link-invalid', 'aria-labelledby': 'page-title' },
      h('p', {}, 'Check that you opened the whole link from the message you received. If it still does not work, ask the person who sent it for a new link.'),
    ),
  );
  endPage('This link is not valid');
};

const CLOSED_HEADINGS: Record<string, string> = {
  submitted: 'The credential has already been sent',
  completed: 'This request is finished',
  revoked: 'This request was withdrawn',
  expired: 'This link has expired',
  locked: 'This link is locked',
  replaced: 'This link was replaced by a newer one',
};

export const showClosed = (reason: string, message: string) => {
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'link-closed', 'data-reason': reason, 'aria-labelledby': 'page-title' },
      h('p', {}, message),
      h('p', {}, reason === 'submitted' ? 'There is nothing more to do. You can close this page.' : 'Nothing can be sent with this link any more. You can close this page.'),
    ),
  );
  endPage(CLOSED_HEADINGS[reason] ?? 'This link can no longer be used');
};

export const showRefusal = (missing: boolean) => {
  const heading = h('h2', { id: 'refusal-heading' }, 'Do not send anything');
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'refusal', class: 'refusal', 'aria-labelledby': 'refusal-heading' },
      heading,
      missing
        ? h('p', {}, 'This link is incomplete: the security check after the “#” is missing or cut short, so this page cannot confirm who would be able to read what you send. Open the whole link from the message you received.')
        : h('p', {}, 'The recipients of this request have changed since the link was made, so this page cannot confirm who would be able to read what you send.'),
      h(
        'p',
        {},
        'Do not send anything. Contact the person who asked you, using a phone number or email address you already know (not one shown on this page), and tell them the link failed its security check.',
      ),
    ),
    missing ? null : reportSection(),
  );
  sayError(missing ? 'This link is incomplete. Do not send anything.' : 'The recipients of this request have changed since the link was made. Do not send anything.');
  focusHeading(heading);
};

/** Every answer that can end the flow: 404, 410; anything else is shown in the alert region. */
export const handleFailure = (error: unknown) => {
  if (error instanceof ApiFailure && error.status === 404) return showInvalid();
  if (error instanceof ApiFailure && error.status === 410) return showClosed(error.reason ?? 'closed', error.message);
  sayError(messageOf(error));
};


export const showSubmitted = (request: SubjectRequest, recordExpiresAt: string | null) => {
  const heading = h('h2', { id: 'submitted-heading' }, 'Sent securely');
  replaceChildren(
    content(),
    h(
      'section',
      { id: 'submitted', 'aria-labelledby': 'submitted-heading' },
      heading,
      h('p', {}, `The credential was encrypted in your browser and sent. Only ${state.recipients.map((r) => r.label).join(', ')} can open it.`),
      recordExpiresAt ? h('p', {}, `It will be destroyed by ${formatTime(recordExpiresAt)} at the latest.`) : null,
      h('p', {}, 'There is nothing more to do. You can close this page.'),
    ),
  );
  say(`Sent. The credential for ${request.organisation.name} was encrypted and delivered.`);
  focusHeading(heading);
};

export const reportSection = () => {
  const reason = h('textarea', { id: 'report-reason', name: 'reason', rows: 2, maxlength: 500 });
  const button = h('button', { id: 'report', type: 'submit', class: 'secondary' }, 'Report this request');
  const form = h('form', { id: 'report-form' }, field('What looks wrong? (optional)', reason), button);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(button, async () => {
      try {
        const text = reason.value.trim();
        await linkCall('POST', '/subject/report', text ? { reason: text } : {});
        replaceChildren(form, h('p', { class: 'ok' }, 'Thank you. The request was reported. Do not send anything until you have checked with the person who asked.'));
        say('The request was reported.');
        // The button pressed is gone: focus goes to the section's heading, not to the page's top.
        focusHeading(byId('report-heading'));
      } catch (error) {
        handleFailure(error);
      }
    });
  });
  return h(
    'section',
    { id: 'report-section', class: 'report', 'aria-labelledby': 'report-heading' },
    h('h2', { id: 'report-heading' }, 'Not expecting this?'),
    h('p', {}, 'If you did not expect this request, or anything about it looks wrong, do not send anything and report it.'),
    form,
  );
};

