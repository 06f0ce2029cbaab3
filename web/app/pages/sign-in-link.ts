/// <reference lib="dom" />
/**
 * The emailed sign-in link, /app/sign-in#token=…: the token is traded for a session at once when
 * this browser asked for a link to that very address in the last 15 minutes; otherwise the page
 * says whom the link signs in, and to which organisation, and waits for the person to confirm.
 * A link someone else sent (their own, unused) would otherwise sign the reader in to the
 * sender's account without a word (login CSRF), and what the reader then made there (a request
 * sealed to the sender's members) would be the sender's.
 *
 * Stable hooks for automated tests: #confirm-sign-in #not-me
 */
import { ApiFailure, messageOf } from '../../shared/api.ts';
import { busy, byId, focusHeading, h, replaceChildren, say, sayError } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { keepNote, takeNote } from '../fresh-note.ts';
import { takeReturn } from '../return-to.ts';
import type { Me } from '../shapes.ts';

const REQUESTED_KEY = 'handoff.signInRequested';

/** Noted when this browser asks for a sign-in link, so the link it gets back signs in without asking. */
export const noteSignInRequested = (email: string) => keepNote(REQUESTED_KEY, email.trim().toLowerCase());

interface SignInPreview {
  member: { name: string; email: string };
  organisation: { name: string };
}

const NOT_VALID = 'This sign-in link is not valid any more: it may have expired or been used already. Ask for a new one below.';
const failureText = (error: unknown) => (error instanceof ApiFailure && error.status !== 0 ? NOT_VALID : messageOf(error));

const signIn = async (app: AppContext, token: string) => {
  const answer = await app.post<Me>('/app/api/session', { token });
  app.signedIn(answer);
  await app.refreshMe().catch(() => undefined);
  // Arriving from an email, a screen-reader user hears where they are and as whom: the landing
  // page's heading takes the focus and the status region says who is signed in.
  say(`Signed in as ${answer.member.email ?? answer.member.name ?? 'a member'} to ${answer.organisation.name}.`);
  app.navigate(takeReturn(), { replace: true, focus: true, keepMessages: true });
};

/** Who is signed in in this browser now, if anyone (the link would replace that session). */
const currentEmail = async (app: AppContext) => {
  try {
    return (await app.refreshMe()).member.email;
  } catch {
    return null;
  }
};

/**
 * Handles the link's token: answers true once the member is signed in (the router has moved on)
 * or the confirmation is shown, false when the link is not valid (the page then offers a new one).
 */
export const followSignInLink = async (app: AppContext, token: string): Promise<boolean> => {
  const content = byId('content');
  replaceChildren(content, h('h1', {}, 'Signing you in…'));
  const requested = takeNote(REQUESTED_KEY);
  let preview: SignInPreview;
  try {
    preview = await app.post<SignInPreview>('/app/api/session', { token, preview: true });
  } catch (error) {
    sayError(failureText(error));
    return false;
  }
  if (requested !== null && requested === preview.member.email.toLowerCase()) {
    try {
      await signIn(app, token);
      return true;
    } catch (error) {
      sayError(failureText(error));
      return false;
    }
  }

  const signedInAs = await currentEmail(app);
  const heading = h('h1', {}, `Sign in as ${preview.member.email}?`);
  const confirm = h('button', { id: 'confirm-sign-in', type: 'button' }, `Sign in as ${preview.member.email}`);
  const notMe = h('a', { id: 'not-me', href: '/app/sign-in' }, 'This is not me: ask for my own link');
  confirm.addEventListener('click', () => {
    void busy(confirm, async () => {
      try {
        await signIn(app, token);
      } catch (error) {
        sayError(failureText(error));
      }
    });
  });
  replaceChildren(
    content,
    heading,
    h('p', {}, `This link signs in ${preview.member.name} (${preview.member.email}) to ${preview.organisation.name}.`),
    ...(signedInAs && signedInAs !== preview.member.email ? [h('p', {}, `You are signed in as ${signedInAs} now; signing in with this link ends that session here.`)] : []),
    h('p', {}, 'Continue only if you asked for this link or were invited. A link someone else sent you would sign you in to their account: close this page and nothing happens.'),
    h('p', {}, confirm, ' ', notMe),
  );
  document.title = 'Confirm sign-in · Credential Handoff';
  focusHeading(heading);
  return true;
};
