/** rotatedSecrets (core/webhooks.ts): which secrets stay valid, and until when, after a rotation. */
import { describe, expect, it } from 'vitest';
import type { SealedSecret } from '../../lambdas/core/sealing.ts';
import { rotatedSecrets } from '../../lambdas/core/webhooks.ts';

const now = new Date('2030-01-01T12:00:00.000Z');
const HOUR = 3_600_000;
const at = (hours: number) => new Date(now.getTime() + hours * HOUR).toISOString();
/** Rotation never opens a secret: a stand-in sealed value named for the test is enough. */
const sealed = (name: string): SealedSecret => ({ v: 1, alg: 'A256GCM', keyId: 'test', iv: name, ciphertext: name, tag: name });
const entry = (name: string, expiresAt: string | null) => ({ sealed: sealed(name), expiresAt });
const fresh = entry('fresh', null);

describe('rotatedSecrets', () => {
  it('puts the new secret first with no expiry and keeps the current one for the overlap', () => {
    expect(rotatedSecrets([entry('current', null)], fresh, now, 24 * HOUR)).toEqual({
      secrets: [entry('fresh', null), entry('current', at(24))],
      oldSecretExpiresAt: at(24),
    });
  });

  it('drops expired secrets, keeps an older one to its own expiry but never past the new overlap', () => {
    const secrets = [entry('current', null), entry('older', at(10)), entry('oldest', at(-1))];
    expect(rotatedSecrets(secrets, fresh, now, 24 * HOUR).secrets).toEqual([entry('fresh', null), entry('current', at(24)), entry('older', at(10))]);
    expect(rotatedSecrets(secrets, fresh, now, 2 * HOUR).secrets).toEqual([entry('fresh', null), entry('current', at(2)), entry('older', at(2))]);
  });

  it('with an overlap of 0 keeps the new secret alone', () => {
    const secrets = [entry('current', null), entry('older', at(10))];
    expect(rotatedSecrets(secrets, fresh, now, 0)).toEqual({ secrets: [entry('fresh', null)], oldSecretExpiresAt: null });
  });

  it('keeps a secret stored before sealing as it is, with the overlap as its expiry (the migration seals it)', () => {
    expect(rotatedSecrets([{ secret: 'whsec_legacy', expiresAt: null }], fresh, now, 24 * HOUR).secrets).toEqual([
      entry('fresh', null),
      { secret: 'whsec_legacy', expiresAt: at(24) },
    ]);
  });
});
