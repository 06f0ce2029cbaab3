import { WriteConflict } from '../../errors.ts';
import type { Clock } from '../../clock.ts';
import { canonicalJson } from '../../custody/canonical.ts';
import { signingInput } from '../../custody/signing-input.ts';
import { sha256Hex } from '../../hashing.ts';
import { SIGNATURE_ALGORITHM, type Jwks, type SignedCertificate, type UnsignedCertificate } from '../../custody/document.ts';
import { ed25519PublicJwk, jwkThumbprint } from '../../custody/thumbprint.ts';
import { jwksOf, type SigningKeyCustody, type SigningKeyRecord, type SigningKeyRegistry } from '../../signing-keys.ts';

/**
 * Signs certificates with the current key, registering the first key when none exists yet (made
 * at first start locally; deployed, the stack's KMS key), and rotates keys for the operator CLI.
 * Publishing the keys (jwks) only reads: the function that serves the public JWKS may not write
 * the key list it publishes.
 */
export class CertificateSigner {
  private cached: { key: SigningKeyRecord; until: number } | null = null;

  constructor(
    private readonly custody: SigningKeyCustody,
    private readonly registry: SigningKeyRegistry,
    private readonly clock: Clock,
  ) {}

  /** The current key, registering the initial one if the registry is empty. */
  async currentKey(): Promise<SigningKeyRecord> {
    if (this.cached && this.cached.until > this.clock.now().getTime()) return this.cached.key;
    const current = await this.registry.current();
    if (current) return this.remember(current);
    const made = await this.record(await this.custody.initialKey());
    try {
      await this.registry.makeCurrent(made, null);
      return this.remember(made);
    } catch (error) {
      // Another process registered the first key at the same moment: use theirs.
      if (!(error instanceof WriteConflict)) throw error;
      const winner = await this.registry.current();
      if (!winner) throw error;
      return this.remember(winner);
    }
  }

  /**
   * A warm function keeps the current key for a minute, so a rotation reaches every function within
   * one; a certificate signed meanwhile with the retired key still verifies (it stays published).
   */
  private remember(key: SigningKeyRecord) {
    this.cached = { key, until: this.clock.now().getTime() + 60_000 };
    return key;
  }

  /** The document with its `signature`: Ed25519 over its signing input (the SHA-256 of its RFC 8785 canonical JSON). */
  async sign(document: UnsignedCertificate): Promise<SignedCertificate> {
    const key = await this.currentKey();
    const message = new TextEncoder().encode(signingInput(sha256Hex(canonicalJson(document))));
    const signature = await this.custody.sign(key.keyRef, message);
    return { ...document, signature: { alg: SIGNATURE_ALGORITHM, kid: key.kid, value: Buffer.from(signature).toString('base64url') } };
  }

  /**
   * Every key ever used, current first; retired ones stay so that old certificates verify. Before
   * the first certificate registers a key, the key it will register (deployed, the stack's KMS key,
   * its public half read from KMS), so a verifier can fetch it early. Never writes the registry.
   */
  async jwks(): Promise<Jwks> {
    const records = await this.registry.list();
    if (records.length > 0) return jwksOf(records);
    return jwksOf([await this.record(await this.custody.initialKey())]);
  }

  /** Makes a new key current and retires (but keeps publishing) the previous one. */
  async rotate(): Promise<{ current: SigningKeyRecord; retired: SigningKeyRecord }> {
    const previous = await this.currentKey();
    const made = await this.record(await this.custody.newKey());
    await this.registry.makeCurrent(made, previous.kid);
    this.remember(made);
    return { current: made, retired: { ...previous, retiredAt: made.createdAt } };
  }

  private async record(key: { keyRef: string; rawPublicKey: Uint8Array }): Promise<SigningKeyRecord> {
    const jwk = ed25519PublicJwk(key.rawPublicKey);
    const kid = await jwkThumbprint(jwk);
    return { kid, jwk: { ...jwk, kid }, keyRef: key.keyRef, createdAt: this.clock.now().toISOString(), retiredAt: null };
  }
}
