/**
 * SPEC.md limits an Idempotency-Key to 200 characters. Node hands a header's bytes over one
 * character each, so a key sent as UTF-8 must be counted as the characters its sender wrote.
 */
import { describe, expect, it, vi } from 'vitest';
import { idempotency, keyLength } from '../../lambdas/http/middleware/idempotency.ts';

/** A header value as Node hands it over: the UTF-8 bytes sent, one Latin-1 character each. */
const asReceived = (key: string) => Buffer.from(key, 'utf8').toString('latin1');

const call = (key: string) =>
  ({
    event: { requestContext: { http: { method: 'POST' } }, rawPath: '/v1/generate', headers: { 'idempotency-key': key } },
    internal: { caller: { apiKey: { id: 'api-key-1' } }, body: {} },
  }) as any;

const store = () => ({
  start: vi.fn(async () => ({ outcome: 'started' as const, claim: { key: { pk: 'k', sk: 'k' }, token: 't' } })),
  finish: vi.fn(async () => undefined),
  release: vi.fn(async () => undefined),
});

describe('the length of an Idempotency-Key', () => {
  it('counts characters, not the bytes of their UTF-8', () => {
    expect(keyLength(asReceived('é'.repeat(200)))).toBe(200);
    expect(keyLength(asReceived('😀'.repeat(200)))).toBe(200);
    expect(keyLength('é'.repeat(200))).toBe(200);
    expect(keyLength('k'.repeat(200))).toBe(200);
  });

  it('counts each byte of a key that is not UTF-8 as one character', () => {
    expect(keyLength('\u00e9'.repeat(3))).toBe(3);
  });

  it('takes 200 characters sent as UTF-8 and refuses 201', async () => {
    for (const character of ['é', '😀']) {
      const accepted = store();
      await idempotency(accepted).before!(call(asReceived(character.repeat(200))));
      expect(accepted.start).toHaveBeenCalledOnce();
      await expect(idempotency(store()).before!(call(asReceived(character.repeat(201))))).rejects.toMatchObject({
        code: 'validation_failed',
      });
    }
  });
});
