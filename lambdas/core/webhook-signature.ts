import { createHmac, randomBytes } from 'node:crypto';

/**
 * Outbound webhook signatures (SPEC.md, Events, Delivery): the Standard Webhooks scheme, plus the
 * deprecated legacy header sent alongside during its deprecation window.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and the base64 of 24 random bytes. Shown once, at creation. */
export const newWebhookSecret = () => `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;

/** The HMAC key of the Standard Webhooks scheme: the base64-decoded part after `whsec_`. */
const standardKey = (secret: string) =>
  Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');

/**
 * `v1,<base64 HMAC-SHA256>` over `<msgId>.<timestampSeconds>.<rawBody>`, keyed with the
 * base64-decoded part of the secret after `whsec_` (the `webhook-signature` header).
 */
export const standardSignature = (secret: string, msgId: string, timestampSeconds: number, rawBody: string) =>
  `v1,${createHmac('sha256', standardKey(secret)).update(`${msgId}.${timestampSeconds}.${rawBody}`).digest('base64')}`;

/**
 * The legacy `X-Service-Signature`: `t=<ts>,v1=<hex HMAC-SHA256>` over `<ts>.<rawBody>`, keyed
 * with the WHOLE secret string as shown to the user (prefix included).
 */
export const legacySignature = (secret: string, timestampSeconds: number, rawBody: string) =>
  `t=${timestampSeconds},v1=${createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex')}`;

/**
 * The signature headers of one delivery. Every given secret signs (space-separated in
 * `webhook-signature`, as while a secret is rotated; a receiver accepts if any matches); the
 * legacy header is signed with the first secret, the current one.
 */
export const signatureHeaders = (secrets: readonly string[], msgId: string, timestampSeconds: number, rawBody: string) => {
  if (secrets.length === 0) throw new Error('no signing secret');
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, msgId, timestampSeconds, rawBody)).join(' '),
    'X-Service-Signature': legacySignature(secrets[0], timestampSeconds, rawBody),
  };
};
