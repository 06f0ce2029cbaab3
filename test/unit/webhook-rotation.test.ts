/** rotatedSecrets (core/webhooks.ts): which secrets stay valid, and until when, after a rotation. */
import { describe, expect, it } from 'vitest';
import { rotatedSecrets } from '../../lambdas/core/webhooks.ts';

const now = new Date('2030-01-01T12:00:00.000Z');
const HOUR = 3_600_000;
const at = (hours: number) => new Date(now.getTime() + hours * HOUR).toISOString();

describe('rotatedSecrets', () => {
  it('puts the new secret first with no expiry and keeps the current one for the overlap', () => {
    expect(rotatedSecrets([{ secret: 'current', expiresAt: null }], 'fresh', now, 24 * HOUR)).toEqual({
      secrets: [
        { secret: 'fresh', expiresAt: null },
        { secret: 'current', expiresAt: at(24) },
      ],
      oldSecretExpiresAt: at(24),
    });
  });

  it('drops expired secrets, keeps an older one to its own expiry but never past the new overlap', () => {
    const secrets = [
      { secret: 'current', expiresAt: null },
      { secret: 'older', expiresAt: at(10) },
      { secret: 'oldest', expiresAt: at(-1) },
    ];
    expect(rotatedSecrets(secrets, 'fresh', now, 24 * HOUR).secrets).toEqual([
      { secret: 'fresh', expiresAt: null },
      { secret: 'current', expiresAt: at(24) },
      { secret: 'older', expiresAt: at(10) },
    ]);
    expect(rotatedSecrets(secrets, 'fresh', now, 2 * HOUR).secrets).toEqual([
      { secret: 'fresh', expiresAt: null },
      { secret: 'current', expiresAt: at(2) },
      { secret: 'older', expiresAt: at(2) },
    ]);
  });

  it('with an overlap of 0 keeps the new secret alone', () => {
    const secrets = [
      { secret: 'current', expiresAt: null },
      { secret: 'older', expiresAt: at(10) },
    ];
    expect(rotatedSecrets(secrets, 'fresh', now, 0)).toEqual({ secrets: [{ secret: 'fresh', expiresAt: null }], oldSecretExpiresAt: null });
  });
});
