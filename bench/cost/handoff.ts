/**
 * One handoff from request to certificate, over HTTP, as its three parties make it:
 *
 * - create: an API client (a helpdesk integration) asks for the credential; the link goes to the
 *   subject by email and the challenge code is told by phone;
 * - open: the subject's browser loads the link's page and its assets (a first visit), and the
 *   page's script describes the request, opens it and passes the challenge code;
 * - submit: the credential, sealed in the browser to the recipient's key (real browser crypto);
 * - reveal and complete: the recipient in the member application: the request, the reveal, the
 *   completion that destroys the stored credential;
 * - certificate: the API client fetches the custody certificate (JSON).
 *
 * The webhook deliveries its events cause happen on their own, in the background.
 */
import { seal } from '../../web/crypto/envelope.ts';
import { fingerprintOf } from '../../web/crypto/identity.ts';
import type { MeteredHttp } from './metered-http.ts';
import type { MemberSession } from './member-session.ts';

export interface HandoffParties {
  http: MeteredHttp;
  apiKey: string;
  member: MemberSession;
  memberEmail: string;
}

interface Created {
  request: { id: string };
  link: string;
  challenge_code: string;
}

interface Described {
  recipients: Array<{ membership_id: string; public_key: string }>;
}

/** The scripts and styles a page loads from /assets/. */
const assetPaths = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);

/** Runs one handoff; answers its request id. */
export const runHandoff = async ({ http, apiKey, member, memberEmail }: HandoffParties, serial: number): Promise<string> => {
  const api = <T>(method: string, path: string, json?: unknown) => http.json<T>(method, `/v1${path}`, { headers: { Authorization: `Bearer ${apiKey}` }, json });
  const created = await api<Created>('POST', '/requests', {
    subject_name: `Cost Subject ${serial}`,
    subject_email: `subject-${serial}@cost.example`,
    justification: 'The firewall admin password, for the cost table',
    recipients: [memberEmail],
    verification_mode: 'challenge',
    delivery: { method: 'email' },
  });
  const id = created.request.id;

  const link = new URL(created.link);
  const page = await http.call('GET', link.pathname);
  for (const asset of assetPaths(page.text)) await http.call('GET', asset);
  const token = link.pathname.split('/').pop()!;
  // The subject pass the verify answer issues is sent back on the calls after it, as the page does.
  let pass = '';
  const subject = <T>(method: string, path: string, json?: unknown) =>
    http.json<T>(method, path, { headers: { 'X-Link-Token': token, ...(pass ? { 'X-Subject-Pass': pass } : {}) }, json });
  const described = await subject<Described>('GET', '/subject/request');
  await subject('POST', '/subject/open');
  pass = (await subject<{ verification: { subject_pass: string } }>('POST', '/subject/verify', { challenge_code: created.challenge_code })).verification.subject_pass;

  const sealTo = await Promise.all(
    described.recipients.map(async (recipient) => ({ membershipId: recipient.membership_id, publicKey: recipient.public_key, fingerprint: await fingerprintOf(recipient.public_key) })),
  );
  const { envelope } = await seal(JSON.stringify({ credential: `cost-credential-${serial}` }), sealTo, id);
  await subject('POST', '/subject/submit', { envelope, attachments: [] });

  await member.call('GET', `/app/api/requests/${id}`);
  await member.call('POST', `/app/api/requests/${id}/reveal`);
  await member.call('POST', `/app/api/requests/${id}/complete`);

  await api('GET', `/requests/${id}/certificate`);
  return id;
};
