/**
 * What a reader of the docs has that no shell example can make, for the few examples that say
 * they need it (README.md, "Shell examples"), each on loopback:
 *
 * - WEBHOOK: one of their webhook subscriptions (here to a receiver on 127.0.0.1), for the operator
 *   CLI's webhook commands;
 * - SHARE_ID: a share made in the application (here through its endpoint, as the technician, with an
 *   envelope in shape: the server never opens it), for the share's certificate;
 * - ZENDESK_URL, ZENDESK_CLIENT_ID, ZENDESK_CLIENT_SECRET: their Zendesk and its OAuth client (here
 *   the fake Zendesk, holding ticket 35436 open), for the helpdesk adapter's worked example;
 * - the certificate the browser downloaded in the README's first handoff, `custody-certificate-<id>.json`
 *   in the folder the examples run in.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../lambdas/core/events.ts';
import { startFakeZendesk } from './fake-zendesk.ts';
import { SIGN_IN_LINK } from './member-browser.ts';
import { startReceiver } from './receiver.ts';
import { shareMaterial } from './shares.ts';

export interface ReaderService {
  /** The service's address (the application, the inbound URLs) and the API's base URL, on 127.0.0.1. */
  appUrl: string;
  baseUrl: string;
  key: string;
  outboxDir: string;
}

const call = async (url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return { body: text ? JSON.parse(text) : null, headers: response.headers };
};

/** The newest sign-in link the outbox holds for `email`. */
const signInToken = (outboxDir: string, email: string) => {
  const texts = readdirSync(outboxDir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(outboxDir, name), 'utf8')) as { purpose?: string; to?: string; text?: string })
    .filter((message) => message.purpose === 'sign_in' && message.to === email);
  const token = SIGN_IN_LINK.exec(texts.at(-1)?.text ?? '')?.[2];
  if (!token) throw new Error(`no sign-in link for ${email} in ${outboxDir}`);
  return token;
};

/** A share, made in the application as `email` would make one. */
const shareMadeInTheApp = async (service: ReaderService, email: string) => {
  await call(`${service.appUrl}/app/api/sign-in`, { body: { email } });
  const session = await call(`${service.appUrl}/app/api/session`, { body: { token: signInToken(service.outboxDir, email) } });
  const cookie = session.headers.getSetCookie().find((header) => header.startsWith('handoff_session='))!.split(';')[0]!;
  const material = shareMaterial();
  const made = await call(`${service.appUrl}/app/api/shares`, {
    body: { envelope: material.envelope, sealed_to_fingerprint: material.fingerprint },
    headers: { Cookie: cookie, 'X-CSRF-Token': session.body.csrf_token },
  });
  return made.body.share.id as string;
};

/** The certificate the first handoff's step 8 downloads, saved where the README's step 9 runs. */
const downloadedCertificate = async (service: ReaderService, workDir: string) => {
  const auth = { Authorization: `Bearer ${service.key}` };
  const created = await call(`${service.baseUrl}/requests`, { body: { subject_name: 'First Handoff', preset: 'standard' }, headers: auth });
  const id = created.body.request.id as string;
  const certificate = await fetch(`${service.baseUrl}/requests/${id}/certificate`, { headers: auth });
  writeFileSync(join(workDir, `custody-certificate-${id}.json`), await certificate.text());
};

export const startReaderFixtures = async (service: ReaderService, workDir: string, memberEmail: string) => {
  const receiver = await startReceiver();
  const webhook = await call(`${service.baseUrl}/webhooks`, {
    body: { url: `${receiver.url}/handoff`, events: [...SUBSCRIBABLE_EVENT_TYPES] },
    headers: { Authorization: `Bearer ${service.key}` },
  });
  const zendeskSecret = randomBytes(24).toString('base64url');
  const zendesk = await startFakeZendesk({ clientId: 'handoff', clientSecret: zendeskSecret, now: Date.now });
  zendesk.setTicket(35436, 'open');
  const shareId = await shareMadeInTheApp(service, memberEmail);
  await downloadedCertificate(service, workDir);
  return {
    env: { WEBHOOK: webhook.body.id as string, SHARE_ID: shareId, ZENDESK_URL: zendesk.url, ZENDESK_CLIENT_ID: 'handoff', ZENDESK_CLIENT_SECRET: zendeskSecret },
    /** Secrets the fixtures hold, for the end's plain-secret scan. */
    secrets: [zendeskSecret, webhook.body.secret as string],
    receiver,
    zendesk,
    close: async () => {
      await Promise.all([receiver.close(), zendesk.close()]);
    },
  };
};
