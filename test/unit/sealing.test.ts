import { createDecipheriv, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWithKey, sealWithKey } from '../../lambdas/core/aes-gcm.ts';
import { contextAad, isSealedSecret, type SealedSecret, type SecretSealer } from '../../lambdas/core/sealing.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CONTEXT = { orgId: 'org_1', integrationId: 'int_1', purpose: 'webhook-signing' };
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sealing-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Flips one bit of a base64 field, keeping it valid base64 of the same length. */
const flipped = (field: string) => {
  const bytes = Buffer.from(field, 'base64');
  bytes[0] ^= 1;
  return bytes.toString('base64');
};

/** Used through the SecretSealer port, as the use cases see it. */
const port = (): SecretSealer => KeyFileSealer.inMemory();

describe('KeyFileSealer', () => {
  it('opens what it sealed, with the same context', async () => {
    const sealer = port();
    const sealed = await sealer.seal(SECRET, CONTEXT);
    expect(isSealedSecret(sealed)).toBe(true);
    expect(sealed).toMatchObject({ v: 1, alg: 'A256GCM' });
    expect(sealed.wrappedKey).toBeUndefined();
    expect(sealed.keyId).toMatch(/^local:[0-9a-f]{16}$/);
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    await expect(sealer.open(sealed, CONTEXT)).resolves.toBe(SECRET);
    // The context's key order does not matter.
    await expect(sealer.open(sealed, { purpose: 'webhook-signing', integrationId: 'int_1', orgId: 'org_1' })).resolves.toBe(SECRET);
  });

  it('round-trips an empty string and non-ASCII text', async () => {
    const sealer = port();
    await expect(sealer.open(await sealer.seal('', CONTEXT), CONTEXT)).resolves.toBe('');
    await expect(sealer.open(await sealer.seal('Grüße, 秘密 🔑', CONTEXT), CONTEXT)).resolves.toBe('Grüße, 秘密 🔑');
  });

  it('uses a fresh IV every time, so sealing one secret twice gives two different values', async () => {
    const sealer = port();
    const [a, b] = [await sealer.seal(SECRET, CONTEXT), await sealer.seal(SECRET, CONTEXT)];
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('refuses to open with another context', async () => {
    const sealer = port();
    const sealed = await sealer.seal(SECRET, CONTEXT);
    await expect(sealer.open(sealed, { ...CONTEXT, integrationId: 'int_2' })).rejects.toThrow(/did not open/);
    await expect(sealer.open(sealed, { ...CONTEXT, extra: 'x' })).rejects.toThrow(/did not open/);
    await expect(sealer.open(sealed, {})).rejects.toThrow(/did not open/);
  });

  it.each(['ciphertext', 'tag', 'iv'] as const)('refuses a value whose %s was altered', async (field) => {
    const sealer = port();
    const sealed = await sealer.seal(SECRET, CONTEXT);
    await expect(sealer.open({ ...sealed, [field]: flipped(sealed[field]) }, CONTEXT)).rejects.toThrow(/did not open/);
  });

  it('refuses a truncated tag instead of checking fewer bytes', async () => {
    const sealer = port();
    const sealed = await sealer.seal(SECRET, CONTEXT);
    const short = Buffer.from(sealed.tag, 'base64').subarray(0, 4).toString('base64');
    await expect(sealer.open({ ...sealed, tag: short }, CONTEXT)).rejects.toThrow(/malformed/);
  });

  it('refuses, by name, a value sealed by another key', async () => {
    const mine = KeyFileSealer.inMemory();
    const theirs = KeyFileSealer.inMemory();
    expect(mine.keyId).not.toBe(theirs.keyId);
    const sealed = await theirs.seal(SECRET, CONTEXT);
    await expect(mine.open(sealed, CONTEXT)).rejects.toThrow(`sealed by key ${theirs.keyId}, not by this key file (${mine.keyId})`);
    // Relabelling it with this key's id only moves the failure to the authentication tag.
    await expect(mine.open({ ...sealed, keyId: mine.keyId }, CONTEXT)).rejects.toThrow(/did not open/);
  });

  it('refuses something that is not a sealed secret', async () => {
    await expect(port().open({ v: 2 } as unknown as SealedSecret, CONTEXT)).rejects.toThrow(/not a sealed secret/);
  });

  it('never puts the plaintext into the sealed JSON', async () => {
    const sealed = await port().seal(SECRET, CONTEXT);
    const json = JSON.stringify(sealed);
    expect(json).not.toContain(SECRET);
    expect(json).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(json).not.toContain(Buffer.from(SECRET).toString('hex'));
  });

  describe('fromFile', () => {
    it('creates the key file (and its directory) with mode 0600, and a second fromFile opens what the first sealed', async () => {
      const path = join(tempDir(), 'nested', '.data', 'sealing.key');
      const first = await KeyFileSealer.fromFile(path);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')).toHaveLength(32);
      const sealed = await first.seal(SECRET, CONTEXT);

      const second = await KeyFileSealer.fromFile(path);
      expect(second.keyId).toBe(first.keyId);
      await expect(second.open(sealed, CONTEXT)).resolves.toBe(SECRET);
    });

    it('gives two sealers started at once on a new path the same key', async () => {
      const path = join(tempDir(), 'sealing.key');
      const sealers = await Promise.all(Array.from({ length: 8 }, () => KeyFileSealer.fromFile(path)));
      expect(new Set(sealers.map((sealer) => sealer.keyId)).size).toBe(1);
      await expect(sealers[7].open(await sealers[0].seal(SECRET, CONTEXT), CONTEXT)).resolves.toBe(SECRET);
    });

    it('names the key by a SHA-256 prefix of the key, and reads a key written by hand', async () => {
      const path = join(tempDir(), 'sealing.key');
      const key = Buffer.alloc(32, 7);
      writeFileSync(path, `${key.toString('base64')}\n`);
      const sealer = await KeyFileSealer.fromFile(path);
      expect(sealer.keyId).toBe(`local:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`);
      // Sealed straight under the file's key: AES-256-GCM with the canonical context as AAD.
      const sealed = await sealer.seal(SECRET, CONTEXT);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(contextAad(CONTEXT));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      expect(Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString()).toBe(SECRET);
    });

    it('refuses a key file that does not hold a 32-byte key, and leaves it alone', async () => {
      const path = join(tempDir(), 'sealing.key');
      writeFileSync(path, 'c2hvcnQ=\n');
      await expect(KeyFileSealer.fromFile(path)).rejects.toThrow(/does not hold a 32-byte base64 key/);
      expect(readFileSync(path, 'utf8')).toBe('c2hvcnQ=\n');
    });
  });
});

describe('contextAad', () => {
  it('is JSON with the keys sorted, whatever order they came in', () => {
    expect(contextAad({ purpose: 'p', orgId: 'o', integrationId: 'i' }).toString()).toBe('{"integrationId":"i","orgId":"o","purpose":"p"}');
    expect(contextAad({ b: '2', a: '1' }).equals(contextAad({ a: '1', b: '2' }))).toBe(true);
    expect(contextAad({}).toString()).toBe('{}');
  });

  it('sorts integer-like keys as text too, as it says', () => {
    expect(contextAad({ b: 'x', '10': 'y', '2': 'z' }).toString()).toBe('{"10":"y","2":"z","b":"x"}');
  });

  it('escapes, so a value cannot pass itself off as another pair', () => {
    expect(contextAad({ a: '1","b":"2' }).equals(contextAad({ a: '1', b: '2' }))).toBe(false);
  });

  it('refuses a value that is not a string', () => {
    expect(() => contextAad({ orgId: 1 } as unknown as Record<string, string>)).toThrow(TypeError);
  });
});

describe('isSealedSecret', () => {
  const valid = { v: 1, alg: 'A256GCM', keyId: 'local:0123456789abcdef', iv: 'aQ==', ciphertext: 'Yw==', tag: 'dA==' };
  it('accepts the stored shape, with or without a wrapped key', () => {
    expect(isSealedSecret(valid)).toBe(true);
    expect(isSealedSecret({ ...valid, wrappedKey: 'a2V5' })).toBe(true);
  });
  it.each([
    ['null', null],
    ['a string', 'sealed'],
    ['another version', { ...valid, v: 2 }],
    ['another algorithm', { ...valid, alg: 'A128GCM' }],
    ['an empty key id', { ...valid, keyId: '' }],
    ['a wrapped key that is not a string', { ...valid, wrappedKey: 1 }],
    ['no tag', { ...valid, tag: undefined }],
  ])('rejects %s', (_name, value) => {
    expect(isSealedSecret(value)).toBe(false);
  });
});

describe('aes-gcm', () => {
  it('seals and opens with the same key and AAD, and throws on another AAD', () => {
    const key = Buffer.alloc(32, 1);
    const parts = sealWithKey(key, SECRET, Buffer.from('aad'));
    expect(openWithKey(key, parts, Buffer.from('aad'))).toBe(SECRET);
    expect(() => openWithKey(key, parts, Buffer.from('other'))).toThrow(/did not open/);
    expect(() => openWithKey(Buffer.alloc(32, 2), parts, Buffer.from('aad'))).toThrow(/did not open/);
  });
});
