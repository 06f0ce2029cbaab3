/// <reference lib="dom" />
/**
 * The subject's request as the link endpoints answer it, the page's state, and the call that
 * carries the link token (sent only in the X-Link-Token header, never in a URL the service logs).
 */
import { call } from '../shared/api.ts';
import { byId } from '../shared/dom.ts';

export type VerificationMode = 'none' | 'challenge' | 'email_otp' | 'either' | 'both';

export interface Verification {
  passed: boolean;
  challenge_passed: boolean;
  email_passed: boolean;
  attempts_left: number;
}

export interface SubjectRequest {
  id: string;
  status: string;
  organisation: { name: string };
  client: { name: string } | null;
  requester: { name: string | null; email: string | null };
  subject: { name: string };
  justification: string;
  verification_mode: VerificationMode;
  verification: Verification;
  allow_attachments: boolean;
  limits: { attachments: number; attachment_bytes: number };
  link_expires_at: string | null;
  recipients: Array<{ membership_id: string; label: string; public_key: string }>;
}

export interface Recipient {
  membershipId: string;
  fingerprint: string;
  publicKey: string;
  label: string;
}

export const content = () => byId('content');

export const state: { token: string; request: SubjectRequest | null; recipients: Recipient[] } = { token: '', request: null, recipients: [] };

export const linkCall = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
  call<T>(method, path, { body, headers: { 'X-Link-Token': state.token } });

