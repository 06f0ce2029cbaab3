/**
 * A signed-in member as the member application's page is one: it reads the emailed sign-in link
 * from the outbox folder, trades it for the session cookie, and keeps the cookie and the CSRF
 * token itself (fetch has no cookie jar).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ApiAnswer, TestService } from './test-service.ts';

export interface OutboxEmail {
  file: string;
  channel: string;
  id: string;
  purpose: string;
  to: string;
  subject: string;
  text: string;
}

/** Every email in the outbox, in the order written. */
export const outboxEmails = (service: TestService): OutboxEmail[] =>
  readdirSync(service.outboxDir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ file: name, ...JSON.parse(readFileSync(join(service.outboxDir, name), 'utf8')) }))
    .filter((message) => message.channel === 'email');

export const signInEmailsTo = (service: TestService, email: string) =>
  outboxEmails(service).filter((message) => message.purpose === 'sign_in' && message.to === email.toLowerCase());

export const SIGN_IN_LINK = /(\S+)\/app\/sign-in#token=([A-Za-z0-9_-]{43})(?=\s|$)/;

/** The token of the newest sign-in link sent to `email`. */
export const latestSignInToken = (service: TestService, email: string) => {
  const messages = signInEmailsTo(service, email);
  expect(messages.length, `a sign-in email to ${email}`).toBeGreaterThan(0);
  const match = SIGN_IN_LINK.exec(messages[messages.length - 1].text);
  expect(match, 'the email holds a sign-in link').not.toBeNull();
  return match![2];
};

/** The `name=value` part of the session cookie a response sets, with the whole header. */
export const sessionCookieOf = (answer: ApiAnswer) => {
  const header = answer.headers.getSetCookie().find((cookie) => cookie.startsWith('handoff_session='));
  return header ? { header, pair: header.split(';')[0] } : null;
};

export const requestSignIn = (service: TestService, email: string, headers: Record<string, string> = {}) =>
  service.call('POST', '/app/api/sign-in', { body: { email }, headers });

export const startSession = (service: TestService, token: string, headers: Record<string, string> = {}) =>
  service.call('POST', '/app/api/session', { body: { token }, headers });

export class MemberBrowser {
  cookie: string | null = null;
  csrf: string | null = null;
  /** The answer of POST /app/api/session. */
  session: ApiAnswer | null = null;

  constructor(readonly service: TestService) {}

  /** Signs in through the emailed link, as the page does. */
  static async signIn(service: TestService, email: string) {
    const browser = new MemberBrowser(service);
    const asked = await requestSignIn(service, email);
    expect(asked.status, asked.text).toBe(202);
    const answer = await startSession(service, latestSignInToken(service, email));
    expect(answer.status, answer.text).toBe(200);
    browser.session = answer;
    browser.cookie = sessionCookieOf(answer)!.pair;
    browser.csrf = answer.body.csrf_token;
    return browser;
  }

  /** A call with the session cookie and (unless `csrf: false`) the CSRF header. */
  call(method: string, path: string, options: { body?: unknown; csrf?: boolean | string; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.Cookie = this.cookie;
    const csrf = options.csrf === undefined || options.csrf === true ? this.csrf : options.csrf === false ? null : options.csrf;
    if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
    return this.service.call(method, path, { body: options.body, headers });
  }
}
