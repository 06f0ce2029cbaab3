import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recipientCommitment } from '../../lambdas/core/commitment.ts';
import { normaliseIdentityKey } from '../../lambdas/core/fingerprint.ts';
import { frameFile } from '../../web/crypto/attachment-frame.ts';
import { open, openAttachment, seal, sealAttachment } from '../../web/crypto/envelope.ts';
import { BackupKeyMismatch, commitmentOf, exportBackup, exportPublicKey, fingerprintOf, generateIdentityPair, importBackup, lockPrivateKey } from '../../web/crypto/identity.ts';

const REQUEST_ID = '01m80000000000000000000000';

const recipient = async (membershipId: string) => {
  const pair = await generateIdentityPair();
  const publicKey = await exportPublicKey(pair.publicKey);
  return { membershipId, publicKey, fingerprint: await fingerprintOf(publicKey), privateKey: await lockPrivateKey(pair), pair };
};

describe('browser envelope crypto (WebCrypto, same code in Node)', () => {
  it('computes the same fingerprint and commitment as the service', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const served = normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString());
    expect(await fingerprintOf(served.publicKey)).toBe(served.fingerprint);
    const a = await recipient('01m8000000000000000000000b');
    const b = await recipient('01m8000000000000000000000a');
    const browser = await commitmentOf([a, b]);
    expect(browser).toBe(recipientCommitment([a, b]));
    expect(browser).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('seals to every recipient; each opens it with its own key only', async () => {
    const alice = await recipient('01m8000000000000000000000a');
    const bob = await recipient('01m8000000000000000000000b');
    const mallory = await recipient('01m8000000000000000000000c');
    const { envelope, contentKey } = await seal('hunter2 — the VPN password', [alice, bob], REQUEST_ID);
    const attachment = await sealAttachment(contentKey, { name: 'cert.pem', type: 'text/plain', bytes: new TextEncoder().encode('-----CERT-----') as Uint8Array<ArrayBuffer> }, REQUEST_ID, { index: 0, count: 1 });
    expect(JSON.stringify(envelope)).not.toContain('hunter2');
    // The file's name and type travel sealed with its bytes: the stored attachment holds neither.
    expect(Object.keys(attachment).sort()).toEqual(['ciphertext', 'iv']);
    expect(envelope.recipients.map((r) => r.membership_id)).toEqual([alice.membershipId, bob.membershipId]);

    for (const who of [alice, bob]) {
      const opened = await open(envelope, who.privateKey, who.fingerprint, REQUEST_ID);
      expect(opened.plaintext).toBe('hunter2 — the VPN password');
      const file = await openAttachment(opened.contentKey, attachment, REQUEST_ID, { index: 0, count: 1 });
      expect({ ...file, bytes: new TextDecoder().decode(file.bytes) }).toEqual({ name: 'cert.pem', type: 'text/plain', bytes: '-----CERT-----' });
    }
    await expect(open(envelope, mallory.privateKey, mallory.fingerprint, REQUEST_ID)).rejects.toThrow(/not sealed to your key/);
    // A recipient entry used with the wrong private key, or under another request id, fails authentication.
    await expect(open(envelope, mallory.privateKey, alice.fingerprint, REQUEST_ID)).rejects.toThrow();
    await expect(open(envelope, alice.privateKey, alice.fingerprint, '01m8000000000000000000000z')).rejects.toThrow();
  });

  it('seals each file to its place among how many: a file dropped, repeated or moved does not open', async () => {
    const alice = await recipient('01m8000000000000000000000a');
    const { envelope, contentKey } = await seal('{"credential":"x","attachments":2}', [alice], REQUEST_ID);
    const file = (text: string) => ({ name: `${text}.txt`, type: 'text/plain', bytes: new TextEncoder().encode(text) as Uint8Array<ArrayBuffer> });
    const sealed = [await sealAttachment(contentKey, file('first'), REQUEST_ID, { index: 0, count: 2 }), await sealAttachment(contentKey, file('second'), REQUEST_ID, { index: 1, count: 2 })];
    const { contentKey: opened } = await open(envelope, alice.privateKey, alice.fingerprint, REQUEST_ID);
    expect((await openAttachment(opened, sealed[1], REQUEST_ID, { index: 1, count: 2 })).name).toBe('second.txt');
    // Moved to another place, served alone, or opened as a file sealed before places were bound: refused.
    await expect(openAttachment(opened, sealed[1], REQUEST_ID, { index: 0, count: 2 })).rejects.toThrow();
    await expect(openAttachment(opened, sealed[0], REQUEST_ID, { index: 0, count: 1 })).rejects.toThrow();
    await expect(openAttachment(opened, sealed[0], REQUEST_ID, null)).rejects.toThrow();
    // A file sealed before places were bound still opens as such.
    const older = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12), additionalData: new TextEncoder().encode(`${REQUEST_ID}/attachment`) }, contentKey, frameFile(file('old')));
    const olderFile = { iv: Buffer.from(new Uint8Array(12)).toString('base64'), ciphertext: Buffer.from(older).toString('base64') };
    expect((await openAttachment(opened, olderFile, REQUEST_ID, null)).name).toBe('old.txt');
  }, 30_000);

  it('backs a key up under a passphrase and restores it as non-extractable', async () => {
    const alice = await recipient('01m8000000000000000000000a');
    const backup = await exportBackup(alice.pair, 'correct horse battery staple');
    expect(backup.fingerprint).toBe(alice.fingerprint);
    const restored = await importBackup(backup, 'correct horse battery staple');
    expect(restored.privateKey.extractable).toBe(false);
    const { envelope } = await seal('secret', [alice], REQUEST_ID);
    expect((await open(envelope, restored.privateKey, restored.fingerprint, REQUEST_ID)).plaintext).toBe('secret');
    await expect(importBackup(backup, 'wrong passphrase')).rejects.toThrow();
  }, 30_000);

  it('refuses a backup whose public key was replaced, its fingerprint recomputed to match', async () => {
    const alice = await recipient('01m8000000000000000000000a');
    const mallory = await recipient('01m8000000000000000000000m');
    const backup = await exportBackup(alice.pair, 'correct horse battery staple');
    const edited = { ...backup, public_key: mallory.publicKey, fingerprint: mallory.fingerprint };
    await expect(importBackup(edited, 'correct horse battery staple')).rejects.toThrow(BackupKeyMismatch);
    // A fingerprint edited alone is not believed: the restored one is computed from the public key.
    expect((await importBackup({ ...backup, fingerprint: mallory.fingerprint }, 'correct horse battery staple')).fingerprint).toBe(alice.fingerprint);
  }, 30_000);
});
