import * as z from 'zod/mini';
import { oneLine, readableTime } from '../messages.ts';
import { addMinutes, type Clock } from '../clock.ts';
import { RANDOM_TOKEN_PATTERN, randomToken, sameDigest, sha256Hex } from '../hashing.ts';
import { newId } from '../ids.ts';
import {
  badSignInLink,
  csrfTokenFor,
  memberView,
  notSignedIn,
  organisationView,
  SESSION_SECONDS,
  SIGN_IN_LIMIT,
  SIGN_IN_LINK_MINUTES,
  type MemberAccessStore,
  type MemberCaller,
  type MemberDirectory,
  type MemberSession,
  type SignInTokenRecord,
} from '../member-access.ts';
import { issuedAfterLastDisable, type Member, type Organisation } from '../model.ts';
import type { Notifier } from '../ports.ts';
import type { PublicUrls } from '../request-view.ts';
import { emailAddress } from '../email-address.ts';
import { parseOrThrow } from '../validation.ts';

export interface SignInDeps {
  access: MemberAccessStore;
  directory: MemberDirectory;
  notifier: Notifier;
  clock: Clock;
  urls: PublicUrls;
  /** A link that could not be sent is logged, never reported to the caller (no enumeration). */
  onDeliveryFailure: (error: unknown) => void;
}

/** More memberships than this under one email are not plausible; the rest are ignored. */
const MAX_MEMBERSHIPS = 20;

const signInBody = z.strictObject({ email: emailAddress() });
const sessionBody = z.strictObject({
  token: z.string().check(z.minLength(1, 'Required.'), z.maxLength(200, 'Must be at most 200 characters.')),
  preview: z.optional(z.boolean()),
});

/**
 * POST /app/api/sign-in: emails a one-time link to every active membership under the email.
 * The answer never tells whether the email is known; a sixth request within the window sends
 * nothing and answers the same.
 */
export const requestSignIn = async (deps: SignInDeps, rawBody: unknown): Promise<void> => {
  const email = parseOrThrow(signInBody, rawBody ?? {}).email.trim().toLowerCase();
  const now = deps.clock.now();
  if (!(await deps.access.countSignIn(email, now, SIGN_IN_LIMIT.count, SIGN_IN_LIMIT.windowMinutes))) return;

  const memberships = (await deps.access.membershipsOf(email)).slice(0, MAX_MEMBERSHIPS);
  await Promise.all(
    memberships.map(async ({ orgId, memberId }) => {
      const [member, org] = await Promise.all([deps.directory.getMember(orgId, memberId), deps.directory.getOrganisation(orgId)]);
      if (!member?.active || !org || member.email !== email) return;
      await emailSignInLink(deps, member, org, now);
    }),
  );
};

/**
 * Saves a one-time sign-in token for the member and emails its link. The same link serves an
 * invitation (`invitation.by`, who invited them): the new member's first sign-in then
 * leads them to set up their key. A failed delivery is logged, never thrown.
 */
export const emailSignInLink = async (
  deps: Pick<SignInDeps, 'access' | 'notifier' | 'urls' | 'onDeliveryFailure'>,
  member: Member,
  org: Organisation,
  now: Date,
  invitation?: { by: string },
): Promise<boolean> => {
  const token = randomToken(32);
  const expiresAt = addMinutes(now, SIGN_IN_LINK_MINUTES).toISOString();
  await deps.access.saveSignInToken(sha256Hex(token), { memberId: member.id, orgId: org.id, createdAt: now.toISOString(), expiresAt });
  const link = `${deps.urls.appUrl}/app/sign-in#token=${token}`;
  // Names come from people: on one line each (core/messages.ts).
  const [name, organisation] = [oneLine(member.name), oneLine(org.name)];
  const opening =
    invitation === undefined
      ? `Hello ${name},\n\nOpen this link to sign in to ${organisation}:\n${link}\n\n`
      : `Hello ${name},\n\n${oneLine(invitation.by)} invited you to ${organisation}. Open this link to sign in and set up your key:\n${link}\n\n`;
  const expiry =
    invitation === undefined
      ? 'If you did not ask to sign in, ignore this email.'
      : `When it has expired, ask for a new link at ${deps.urls.appUrl}/app/sign-in with this email address.`;
  try {
    await deps.notifier.sendEmail({
      id: newId(now.getTime()),
      purpose: 'sign_in',
      to: member.email,
      subject: invitation === undefined ? `Sign in to ${organisation}` : `You are invited to ${organisation}`,
      text: `${opening}It works once and expires in ${SIGN_IN_LINK_MINUTES} minutes (at ${readableTime(expiresAt)}). ${expiry}`,
    });
    return true;
  } catch (error) {
    deps.onDeliveryFailure(error);
    return false;
  }
};

type SessionDeps = Pick<SignInDeps, 'access' | 'directory' | 'clock'>;

/** The member and organisation a sign-in token's record signs in, when it still may; 401 otherwise. */
const signingIn = async (deps: SessionDeps, record: SignInTokenRecord | null) => {
  if (!record || new Date(record.expiresAt) <= deps.clock.now()) throw badSignInLink();
  const [member, org] = await Promise.all([
    deps.directory.getMember(record.orgId, record.memberId),
    deps.directory.getOrganisation(record.orgId),
  ]);
  if (!member?.active || !org || !issuedAfterLastDisable(member, record.createdAt)) throw badSignInLink();
  return { member, org };
};

/**
 * POST /app/api/session {token, preview: true}: whom the emailed link signs in, and to which
 * organisation, leaving the token usable. The sign-in page shows it and asks before a link it
 * did not ask for is used (a link sent by someone else would sign the reader in to the sender's
 * account: login CSRF).
 */
export const previewSession = async (deps: SessionDeps, token: string) => {
  if (!RANDOM_TOKEN_PATTERN.test(token)) throw badSignInLink();
  const { member, org } = await signingIn(deps, await deps.access.peekSignInToken(sha256Hex(token)));
  return { member: { name: member.name, email: member.email }, organisation: { name: org.name } };
};

/**
 * POST /app/api/session: trades a sign-in token for a session, once. Answers the session token
 * (for the cookie) beside the body; the body holds the CSRF token the page sends on every POST.
 * With `preview: true`, answers previewSession's instead (`sessionToken` null).
 */
export const startSession = async (deps: SessionDeps, rawBody: unknown) => {
  const { token, preview } = parseOrThrow(sessionBody, rawBody ?? {});
  if (preview) return { sessionToken: null, answer: await previewSession(deps, token) };
  if (!RANDOM_TOKEN_PATTERN.test(token)) throw badSignInLink();
  // The delete is conditional, so of two calls with the same token only one gets the record.
  const { member, org } = await signingIn(deps, await deps.access.consumeSignInToken(sha256Hex(token)));
  const now = deps.clock.now();

  const sessionToken = randomToken(32);
  const csrfToken = csrfTokenFor(sessionToken);
  const session: MemberSession = {
    tokenHash: sha256Hex(sessionToken),
    memberId: member.id,
    orgId: org.id,
    csrfHash: sha256Hex(csrfToken),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000).toISOString(),
  };
  await deps.access.saveSession(session);
  return {
    sessionToken,
    answer: { member: memberView(member), organisation: organisationView(org), csrf_token: csrfToken },
  };
};

/**
 * The member behind a session cookie: the session exists and has not expired, and the member is
 * still active. 401 otherwise.
 */
export const resolveSession = async (
  deps: Pick<SignInDeps, 'access' | 'directory' | 'clock'>,
  sessionToken: string | null,
): Promise<MemberCaller> => {
  if (!sessionToken || !RANDOM_TOKEN_PATTERN.test(sessionToken)) throw notSignedIn();
  const session = await deps.access.getSession(sha256Hex(sessionToken));
  if (!session || new Date(session.expiresAt) <= deps.clock.now()) throw notSignedIn();
  const [member, org] = await Promise.all([
    deps.directory.getMember(session.orgId, session.memberId),
    deps.directory.getOrganisation(session.orgId),
  ]);
  if (!member?.active || !org || !issuedAfterLastDisable(member, session.createdAt)) throw notSignedIn();
  return { org, member, session, csrfToken: csrfTokenFor(sessionToken) };
};

/** Whether `presented` is this session's CSRF token (compared as hashes, in constant time). */
export const csrfMatches = (caller: MemberCaller, presented: string | undefined) =>
  typeof presented === 'string' && presented.length > 0 && presented.length <= 200 && sameDigest(caller.session.csrfHash, sha256Hex(presented));

/** POST /app/api/sign-out */
export const endSession = (deps: Pick<SignInDeps, 'access'>, caller: MemberCaller) => deps.access.deleteSession(caller.session.tokenHash);

/** GET /app/api/me */
export const describeMember = (caller: MemberCaller) => ({
  member: memberView(caller.member),
  organisation: organisationView(caller.org),
  csrf_token: caller.csrfToken,
});
