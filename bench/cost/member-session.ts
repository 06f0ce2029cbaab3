/**
 * A member signed in to the member application as the page does it: the emailed sign-in link,
 * read from the local outbox, traded for the session cookie and the CSRF token. Done once before
 * the counting starts: a member's session serves many handoffs.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MeteredHttp } from './metered-http.ts';

const SIGN_IN_TOKEN = /\/app\/sign-in#token=([A-Za-z0-9_-]{43})/;

export interface MemberSession {
  /** A call of the member application's API as this member. */
  call<T>(method: 'GET' | 'POST', path: string): Promise<T>;
}

const latestSignInToken = (outboxDir: string, email: string) => {
  const messages = readdirSync(outboxDir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(outboxDir, name), 'utf8')) as { channel: string; purpose: string; to: string; text: string })
    .filter((message) => message.channel === 'email' && message.purpose === 'sign_in' && message.to === email.toLowerCase());
  const token = SIGN_IN_TOKEN.exec(messages.at(-1)?.text ?? '')?.[1];
  if (!token) throw new Error(`no sign-in link was sent to ${email}`);
  return token;
};

export const signIn = async (http: MeteredHttp, outboxDir: string, email: string): Promise<MemberSession> => {
  await http.call('POST', '/app/api/sign-in', { json: { email } });
  const session = await http.call('POST', '/app/api/session', { json: { token: latestSignInToken(outboxDir, email) } });
  const cookie = session.headers.getSetCookie().find((header) => header.startsWith('handoff_session='))?.split(';')[0];
  const { csrf_token: csrf } = JSON.parse(session.text) as { csrf_token: string };
  if (!cookie) throw new Error('the session answer set no session cookie');
  return {
    call: (method, path) => http.json(method, path, { headers: method === 'GET' ? { Cookie: cookie } : { Cookie: cookie, 'X-CSRF-Token': csrf } }),
  };
};
