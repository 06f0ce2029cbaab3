/**
 * Shares for server tests: an envelope that passes POST /app/api/shares' shape (the member's
 * browser would seal a real credential to a one-time key; the server never opens it, so random
 * base64 stands in), created through the member endpoint, and the link token read from the link.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { MemberBrowser } from './member-browser.ts';
import type { ApiAnswer } from './test-service.ts';

const b64 = (bytes: number) => randomBytes(bytes).toString('base64');

export interface ShareMaterial {
  envelope: {
    version: 1;
    alg: 'ECDH-ES+HKDF-SHA256+A256GCM';
    ephemeral_public_key: string;
    iv: string;
    ciphertext: string;
    recipients: Array<{ membership_id: 'share-recipient'; fingerprint: string; iv: string; wrapped_key: string }>;
  };
  /** The one-time recipient key's fingerprint (lower-case hex SHA-256). */
  fingerprint: string;
  /** The envelope's values that must never appear anywhere but the envelope item and /share/open. */
  secrets: string[];
}

/** A fresh envelope sealed (in shape) to a fresh one-time recipient fingerprint. */
export const shareMaterial = (): ShareMaterial => {
  const fingerprint = randomBytes(32).toString('hex');
  const envelope = {
    version: 1 as const,
    alg: 'ECDH-ES+HKDF-SHA256+A256GCM' as const,
    ephemeral_public_key: b64(65),
    iv: b64(12),
    ciphertext: b64(96),
    recipients: [{ membership_id: 'share-recipient' as const, fingerprint, iv: b64(12), wrapped_key: b64(48) }],
  };
  return {
    envelope,
    fingerprint,
    secrets: [envelope.ciphertext, envelope.ephemeral_public_key, envelope.recipients[0].wrapped_key],
  };
};

export interface CreatedShare {
  id: string;
  link: string;
  token: string;
  material: ShareMaterial;
  answer: ApiAnswer;
}

export const SHARE_LINK = /^(https?:\/\/[^/]+)\/s\/([A-Za-z0-9_-]{43})$/;

/** POST /app/api/shares as `browser`; expects 201. `body` overrides the defaults. */
export const createShareAs = async (browser: MemberBrowser, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<CreatedShare> => {
  const material = shareMaterial();
  const answer = await browser.call('POST', '/app/api/shares', {
    body: { envelope: material.envelope, sealed_to_fingerprint: material.fingerprint, ...body },
    headers,
  });
  expect(answer.status, answer.text).toBe(201);
  const match = SHARE_LINK.exec(answer.body.link);
  expect(match, `a share link (${answer.body.link})`).not.toBeNull();
  return { id: answer.body.share.id, link: answer.body.link, token: match![2], material, answer };
};
