import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../web/crypto/identity.ts';
import {
  decodeShareFragment,
  generatePassword,
  makeShareKey,
  openShare,
  PASSWORD_LENGTH,
  sealedToOnly,
  sealShare,
  shareBinding,
  ShareKeyError,
  SHARE_RECIPIENT_ID,
} from '../../web/crypto/share-key.ts';
import { open } from '../../web/crypto/envelope.ts';

/** The share's one-time key and envelope (web/crypto/share-key.ts), in Node's WebCrypto. */
describe('share keys', () => {
  it('the fragment rebuilds the same key: same fingerprint, and it opens what was sealed to it', async () => {
    const key = await makeShareKey();
    expect(key.fragment).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/);
    expect(key.fingerprint).toBe(await fingerprintOf(key.publicKey));
    const envelope = await sealShare({ credential: 'p4ss' }, key);
    expect(envelope.recipients).toEqual([expect.objectContaining({ membership_id: SHARE_RECIPIENT_ID, fingerprint: key.fingerprint })]);
    expect(sealedToOnly(envelope, key.fingerprint)).toBe(true);

    const rebuilt = await decodeShareFragment(`#${key.fragment}`);
    expect(rebuilt.fingerprint).toBe(key.fingerprint);
    expect(rebuilt.publicKey).toBe(key.publicKey);
    expect(await openShare(envelope, rebuilt)).toEqual({ credential: 'p4ss' });
    // The binding is the request construction's request id: share/<fingerprint>.
    const { plaintext } = await open(envelope, rebuilt.privateKey, key.fingerprint, shareBinding(key.fingerprint));
    expect(JSON.parse(plaintext)).toEqual({ credential: 'p4ss' });
    await expect(open(envelope, rebuilt.privateKey, key.fingerprint, 'share/another')).rejects.toThrow();
  });

  it('another key neither matches the fingerprint nor opens the envelope', async () => {
    const key = await makeShareKey();
    const other = await decodeShareFragment((await makeShareKey()).fragment);
    expect(other.fingerprint).not.toBe(key.fingerprint);
    const envelope = await sealShare({ credential: 'p4ss' }, key);
    expect(sealedToOnly(envelope, other.fingerprint)).toBe(false);
    await expect(openShare(envelope, { privateKey: other.privateKey, fingerprint: key.fingerprint })).rejects.toThrow();
  });

  it('refuses a missing, malformed or mismatched fragment', async () => {
    const one = (await makeShareKey()).fragment.split('.');
    const two = (await makeShareKey()).fragment.split('.');
    const problem = (fragment: string) => decodeShareFragment(fragment).then(() => 'accepted', (error: ShareKeyError) => error.problem);
    expect(await problem('')).toBe('missing');
    expect(await problem('#')).toBe('missing');
    expect(await problem('#abc')).toBe('malformed');
    expect(await problem(one.slice(0, 2).join('.'))).toBe('malformed');
    expect(await problem(`${one[0]}.${two[1]}.${two[2]}`)).toBe('malformed'); // d of one key, x/y of another
    expect(await problem(`${one[0]}.${one[1]}.${two[2]}`)).toBe('malformed'); // not a point on the curve
    expect(await problem(one.join('.'))).toBe('accepted');
  });

  it('generates passwords of the chosen length from every character class', () => {
    for (const length of [PASSWORD_LENGTH.min, 20, 64, PASSWORD_LENGTH.max]) {
      const password = generatePassword(length);
      expect(password).toHaveLength(length);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/[0-9]/);
      expect(password).toMatch(/[^A-Za-z0-9]/);
    }
    expect(new Set(Array.from({ length: 50 }, () => generatePassword())).size).toBe(50);
  });
});
