/**
 * What "the same body" is to an Idempotency-Key: a POST sent with no body and the same POST with
 * `{}` are one request (many clients send either on a POST whose body is optional); any other
 * difference, a body that is not an object included, is another request.
 */
import { describe, expect, it, vi } from 'vitest';
import { idempotency, keyedJsonFingerprint } from '../../lambdas/http/middleware/idempotency.ts';
import type { CodeKey } from '../../lambdas/core/code-key.ts';

/** A POST to revoke as the middleware sees it: `body` undefined when none (or an empty one) was sent. */
const call = (body: unknown) =>
  ({
    event: { requestContext: { http: { method: 'POST' } }, rawPath: '/v1/requests/r1/revoke', headers: { 'idempotency-key': 'key-1' } },
    internal: { caller: { apiKey: { id: 'api-key-1' } }, ...(body === undefined ? {} : { body }) },
  }) as any;

/** The fingerprint each body is claimed with. */
const fingerprintsOf = async (bodies: unknown[], options: Parameters<typeof idempotency>[1] = {}) => {
  const start = vi.fn(async (_owner: string, _key: string, _fingerprint: string) => ({ outcome: 'mismatch' as const }));
  const middleware = idempotency({ start, finish: vi.fn(), release: vi.fn() }, options);
  for (const body of bodies) await middleware.before!(call(body)).catch(() => undefined);
  return start.mock.calls.map(([, , fingerprint]) => fingerprint);
};

const OTHER_BODIES = [null, [], '', 0, false, { reason: 'x' }, { '': null }];

describe('the fingerprint of a body', () => {
  it('is the same for no body and for {}', async () => {
    const [none, empty] = await fingerprintsOf([undefined, {}]);
    expect(none).toBe(empty);
  });

  it('differs for every other body, a body that is not an object included', async () => {
    const fingerprints = await fingerprintsOf([{}, ...OTHER_BODIES]);
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
  });

  it('is the same for no body and for {} when it is keyed (a body that holds a secret)', async () => {
    const codeKey: CodeKey = { mac: async (message) => `mac(${message})` };
    const fingerprints = await fingerprintsOf([undefined, {}, null, { secret: 's' }], { fingerprintOf: keyedJsonFingerprint(codeKey) });
    expect(fingerprints[0]).toBe(fingerprints[1]);
    expect(new Set(fingerprints).size).toBe(3);
  });
});
