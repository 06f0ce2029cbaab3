import { createHmac } from 'node:crypto';
import { ApiError, forbidden } from './errors.ts';
import type { AuditEntryInput, Directory } from './ports.ts';
import type { Client, IdentityKey, Member, Organisation } from './model.ts';

/**
 * Members of the web application (docs/web-api.md, Member endpoints): sign-in by an emailed
 * one-time link, a session cookie, and what the member endpoints may see and do. Only hashes of
 * the sign-in token, the session token and the CSRF token are ever stored.
 */
export const SIGN_IN_LINK_MINUTES = 15;
export const SESSION_SECONDS = 12 * 60 * 60;
/** At most this many sign-in requests per email address within the window (a cheap mailbox guard). */
export const SIGN_IN_LIMIT = { count: 5, windowMinutes: 15 } as const;

export interface MemberSession {
  /** SHA-256 (hex) of the session token, which lives only in the member's HttpOnly cookie. */
  tokenHash: string;
  memberId: string;
  orgId: string;
  /** SHA-256 (hex) of the session's CSRF token. */
  csrfHash: string;
  createdAt: string;
  expiresAt: string;
}

/** A signed-in member calling a member endpoint. */
export interface MemberCaller {
  org: Organisation;
  member: Member;
  session: MemberSession;
  /** The session's CSRF token, derived from the presented cookie; never stored. */
  csrfToken: string;
}

export interface SignInTokenRecord {
  memberId: string;
  orgId: string;
  createdAt: string;
  /** DynamoDB TTL is lazy, so expiry is checked against this. */
  expiresAt: string;
}

/** Storage of sign-in tokens and sessions (store/sessions.ts). */
export interface MemberAccessStore {
  /** The (organisation, member) pairs registered under this email, active or not. */
  membershipsOf(email: string): Promise<Array<{ orgId: string; memberId: string }>>;
  /** Counts one sign-in request for `email`; false (nothing counted) when `limit` already fell within the window. */
  countSignIn(email: string, now: Date, limit: number, windowMinutes: number): Promise<boolean>;
  saveSignInToken(tokenHash: string, record: SignInTokenRecord): Promise<void>;
  /** Deletes the token and returns what it held; null when unknown or already used. Only one caller can win. */
  consumeSignInToken(tokenHash: string): Promise<SignInTokenRecord | null>;
  /** What the token holds, leaving it usable; null when unknown or already used. */
  peekSignInToken(tokenHash: string): Promise<SignInTokenRecord | null>;
  saveSession(session: MemberSession): Promise<void>;
  getSession(tokenHash: string): Promise<MemberSession | null>;
  deleteSession(tokenHash: string): Promise<void>;
}

export interface MemberDirectory extends Pick<Directory, 'getOrganisation' | 'listMembers'> {
  getMember(orgId: string, memberId: string): Promise<Member | null>;
}

/** A member's identity key changes, conditionally (store/member-keys.ts). */
export interface IdentityKeyStore {
  /**
   * Sets the member's key to `next` if it is still `expected` (null: no key yet), with the audit
   * entry, in one transaction; throws WriteConflict when the key changed meanwhile.
   */
  replaceIdentityKey(member: Member, expected: IdentityKey | null, next: IdentityKey, audit: AuditEntryInput): Promise<void>;
}

export const notSignedIn = () =>
  new ApiError(401, 'unauthenticated', 'You are not signed in, or your session has ended. Sign in again.');
/** A change by a member whose role changed while the call was under way: nothing was written. */
export const roleChangedMeanwhile = () =>
  forbidden('Your role in the organisation changed while this was under way, and nothing was changed. Reload the page.');
export const badSignInLink = () =>
  new ApiError(401, 'unauthenticated', 'This sign-in link is unknown, already used or expired. Ask for a new one.');

/**
 * The CSRF token of a session: an HMAC of a fixed label keyed with the session token. The page
 * can always get it again from GET /app/api/me (the server sees the cookie on every call), yet it
 * is never stored, and it reveals nothing about the session token.
 */
export const csrfTokenFor = (sessionToken: string) =>
  createHmac('sha256', sessionToken).update('handoff/csrf/v1').digest('base64url');

export const memberActor = (member: Member) => ({ type: 'member' as const, label: member.name, id: member.id });
export const memberRef = (member: Member) => ({ membership_id: member.id, name: member.name, email: member.email });
export const isManager = (member: Member) => member.role === 'owner' || member.role === 'admin';
/** What only owners and admins may do (manage members, API keys, webhooks; read the audit log): anyone else, 403. */
export const requireManager = (caller: MemberCaller, action: string) => {
  if (!isManager(caller.member)) throw forbidden(`Only owners and admins can ${action}.`);
};
/** The member as the actor of a change only owners and admins may make (403 for anyone else). */
export const managerActor = (caller: MemberCaller, action: string) => {
  requireManager(caller, action);
  return memberActor(caller.member);
};
/** A copy of `items` in the order a member's lists and forms show them: by name. */
export const byName = <T extends { name: string }>(items: readonly T[]) => [...items].sort((a, b) => a.name.localeCompare(b.name));
/** The organisation's clients as a member's form offers them, by name. */
export const clientChoices = (clients: Client[]) => byName(clients).map((client) => ({ id: client.id, name: client.name }));

export const identityKeyView = (key: IdentityKey | null) =>
  key ? { fingerprint: key.fingerprint, state: key.state, made_by: key.madeBy ?? ('member' as const) } : null;
export const memberView = (member: Member) => ({
  membership_id: member.id,
  name: member.name,
  email: member.email,
  role: member.role,
  identity_key: identityKeyView(member.identityKey),
});
export const organisationView = (org: Organisation) => ({ id: org.id, name: org.name });

/** Event data naming the acting member, in the shape SPEC.md's Event `data` uses. */
export const memberEventData = (member: Member) => {
  const actor = memberActor(member);
  return { actor: { type: actor.type, label: actor.label } };
};
