import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyFileSigningCustody } from '../../lambdas/local/key-file-signing.ts';

const folder = mkdtempSync(join(tmpdir(), 'signing-keys-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const publicKeyOf = (raw: Uint8Array) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });

describe('local signing keys (key files under .data/)', () => {
  it('writes each new key as a PKCS#8 PEM only its owner can read, and signs with it', async () => {
    const custody = KeyFileSigningCustody.inFolder(join(folder, 'keys'));
    const key = await custody.initialKey();
    const files = readdirSync(join(folder, 'keys'));
    expect(files).toHaveLength(1);
    expect(statSync(join(folder, 'keys', files[0]!)).mode & 0o777).toBe(0o600);
    const message = new TextEncoder().encode('certificate bytes');
    expect(verify(null, message, publicKeyOf(key.rawPublicKey), await custody.sign(key.keyRef, message))).toBe(true);
  });

  it('signs after a restart with the key on disk (another process, same folder)', async () => {
    const first = KeyFileSigningCustody.inFolder(join(folder, 'restart'));
    const key = await first.newKey();
    const second = KeyFileSigningCustody.inFolder(join(folder, 'restart'));
    const message = new TextEncoder().encode('after restart');
    expect(verify(null, message, publicKeyOf(key.rawPublicKey), await second.sign(key.keyRef, message))).toBe(true);
  });

  it('keeps every key: a rotation adds a file and never replaces one', async () => {
    const custody = KeyFileSigningCustody.inFolder(join(folder, 'rotate'));
    const a = await custody.newKey();
    const b = await custody.newKey();
    expect(a.keyRef).not.toBe(b.keyRef);
    expect(readdirSync(join(folder, 'rotate'))).toHaveLength(2);
  });

  it('refuses a key it does not hold', async () => {
    await expect(KeyFileSigningCustody.inMemory().sign('file:unknown', new Uint8Array([1]))).rejects.toThrow(/not held here/);
    await expect(KeyFileSigningCustody.inFolder(join(folder, 'empty')).sign('arn:aws:kms:eu-west-2:1:key/x', new Uint8Array([1]))).rejects.toThrow(/not held here/);
  });
});
