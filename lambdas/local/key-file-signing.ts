import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SigningKeyCustody } from '#core/signing-keys.ts';

const FILE_REF = 'file:';

/** The raw 32-byte public key of an Ed25519 key object (the JWK's `x`). */
const rawPublicKeyOf = (key: KeyObject) => new Uint8Array(Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url'));

/**
 * The local signing keys: one PKCS#8 PEM file per key in a folder under `.data/` (mode 0600),
 * named by a reference the registry stores. Deployed, KMS holds the keys instead
 * (adapters/kms-signing.ts). `inMemory` keeps them in the process, for tests.
 */
export class KeyFileSigningCustody implements SigningKeyCustody {
  private readonly loaded = new Map<string, KeyObject>();
  private initial: Promise<{ keyRef: string; rawPublicKey: Uint8Array }> | undefined;

  private constructor(private readonly folder: string | null) {}

  static inFolder(folder: string) {
    return new KeyFileSigningCustody(folder);
  }

  static inMemory() {
    return new KeyFileSigningCustody(null);
  }

  /** Made on first use and the same afterwards (SigningKeyCustody); a failed attempt is not kept. */
  initialKey() {
    this.initial ??= this.newKey().catch((error: unknown) => {
      this.initial = undefined;
      throw error;
    });
    return this.initial;
  }

  async newKey() {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyRef = `${FILE_REF}${Date.now().toString(36)}-${rawPublicKeyOf(publicKey).slice(0, 6).reduce((text, byte) => text + byte.toString(16).padStart(2, '0'), '')}`;
    if (this.folder) {
      await mkdir(this.folder, { recursive: true, mode: 0o700 });
      // `wx`: never overwrite a key file; a key that signed certificates must stay.
      await writeFile(this.pathOf(keyRef), privateKey.export({ format: 'pem', type: 'pkcs8' }), { flag: 'wx', mode: 0o600 });
    }
    this.loaded.set(keyRef, privateKey);
    return { keyRef, rawPublicKey: rawPublicKeyOf(publicKey) };
  }

  async sign(keyRef: string, message: Uint8Array) {
    return new Uint8Array(sign(null, message, await this.privateKey(keyRef)));
  }

  private async privateKey(keyRef: string) {
    const loaded = this.loaded.get(keyRef);
    if (loaded) return loaded;
    if (!this.folder || !keyRef.startsWith(FILE_REF)) throw new Error(`signing key ${keyRef} is not held here`);
    const key = createPrivateKey(await readFile(this.pathOf(keyRef), 'utf8'));
    this.loaded.set(keyRef, key);
    return key;
  }

  private pathOf(keyRef: string) {
    return join(this.folder!, `${keyRef.slice(FILE_REF.length).replace(/[^a-z0-9-]/g, '')}.pem`);
  }
}
