/// <reference lib="dom" />
/**
 * The subject's request as the link endpoints answer it, the page's state, and the call that
 * carries the link token (sent only in the X-Link-Token header, never in a URL the service logs)
 * and, once a code has passed in this browser, the subject pass (X-Subject-Pass).
 */
import { call } from '../shared/api.ts';
import { byId } from '../shared/dom.ts';

export type VerificationMode = 'none' | 'challenge' | 'email_otp' | 'either' | 'both';

export interface Verification {
  passed: boolean;
  challenge_passed: boolean;
  email_passed: boolean;
  attempts_left: number;
  /** Only in the answer of the verify call that issued it: keep it, and send it on every call. */
  subject_pass?: string;
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

export const state: { token: string; pass: string; request: SubjectRequest | null; recipients: Recipient[] } = { token: '', pass: '', request: null, recipients: [] };

/**
 * The subject pass is kept in this tab's sessionStorage: a reload keeps what this browser passed,
 * while another tab or browser holding only the link is asked for the code again.
 */
const passKey = () => `subject-pass:${state.token}`;

export const loadPass = () => {
  try {
    state.pass = sessionStorage.getItem(passKey()) ?? '';
  } catch {
    state.pass = ''; // storage refused: the code is asked again after a reload
  }
};

/** Keeps a pass a verify answer issued (it replaces any earlier one). */
export const keepPass = (verification: Verification | undefined) => {
  const pass = verification?.subject_pass;
  if (!pass) return;
  state.pass = pass;
  delete verification.subject_pass;
  try {
    sessionStorage.setItem(passKey(), pass);
  } catch {
    // Kept in memory only: this page still works until it is reloaded.
  }
};

export const linkCall = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
  call<T>(method, path, { body, headers: { 'X-Link-Token': state.token, ...(state.pass ? { 'X-Subject-Pass': state.pass } : {}) } });

