import { Webhook } from 'standardwebhooks';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { legacySignature, newWebhookSecret, signatureHeaders, standardSignature } from '../../lambdas/core/webhook-signature.ts';

const OFFICIAL = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('webhook signatures', () => {
  it('reproduces the official Standard Webhooks test vector', () => {
    expect(standardSignature(OFFICIAL.secret, OFFICIAL.id, OFFICIAL.timestamp, OFFICIAL.payload)).toBe(OFFICIAL.signature);
  });

  it('makes secrets of whsec_ and the base64 of 24 random bytes, each new', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('is accepted by the standardwebhooks library, with one secret and with several', () => {
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ id: 'evt_7', object: 'event', type: 'request.created' });
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const single = signatureHeaders([current], 'msg_1', now, body);
    expect(new Webhook(current).verify(body, single)).toEqual(JSON.parse(body));

    const rotating = signatureHeaders([current, previous], 'msg_2', now, body);
    expect(rotating['webhook-signature'].split(' ')).toHaveLength(2);
    expect(rotating['webhook-signature'].split(' ').every((part) => part.startsWith('v1,'))).toBe(true);
    expect(new Webhook(current).verify(body, rotating)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, rotating)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, rotating)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, rotating)).toThrow();
  });

  it('signs the legacy header with the whole secret string over "<t>.<body>", hex', () => {
    const body = '{"a":1}';
    const expected = createHmac('sha256', OFFICIAL.secret).update(`1614265330.${body}`).digest('hex');
    expect(legacySignature(OFFICIAL.secret, 1614265330, body)).toBe(`t=1614265330,v1=${expected}`);
    const headers = signatureHeaders([OFFICIAL.secret, newWebhookSecret()], 'msg_3', 1614265330, body);
    expect(headers['X-Service-Signature']).toBe(`t=1614265330,v1=${expected}`);
    expect(headers['webhook-id']).toBe('msg_3');
    expect(headers['webhook-timestamp']).toBe('1614265330');
  });

  it('refuses to sign without a secret', () => {
    expect(() => signatureHeaders([], 'msg', 1, '')).toThrow();
  });
});
