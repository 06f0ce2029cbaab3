import { describe, expect, it } from 'vitest';
import { DEFAULT_PHONE_COUNTRY, toE164 } from '../../lambdas/core/phone.ts';

describe('toE164', () => {
  it('reads national numbers in the UK', () => {
    expect(DEFAULT_PHONE_COUNTRY).toBe('GB');
    expect(toE164('07911 123456')).toBe('+447911123456');
    expect(toE164('07911123456')).toBe('+447911123456');
    expect(toE164('020 7946 0958')).toBe('+442079460958');
    expect(toE164('(020) 7946-0958')).toBe('+442079460958');
  });

  it('keeps international numbers in their own country', () => {
    expect(toE164('+44 20 7946 0958')).toBe('+442079460958');
    expect(toE164('+1 212 555 0123')).toBe('+12125550123');
    expect(toE164('+33 6 12 34 56 78')).toBe('+33612345678');
    expect(toE164('+14155552671')).toBe('+14155552671');
  });

  it('returns E.164 unchanged', () => {
    expect(toE164('+447911123456')).toBe('+447911123456');
  });

  it.each(['', 'abc', '12', 'call me maybe', '+44', '+999 123 456', '07911 1234'])('gives null for %j', (input) => {
    expect(toE164(input)).toBeNull();
  });
});
