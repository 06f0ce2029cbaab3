import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { openWithKey, sealWithKey } from '#core/aes-gcm.ts';
import { sha256Hex } from '#core/hashing.ts';
import { contextAad, isSealedSecret, type SealedSecret, type SecretSealer } from '#core/sealing.ts';

const KEY_BYTES = 32;
// Another process may have created the file but not yet written the key: wait for it this long.
const READ_ATTEMPTS = 50;
const READ_RETRY_MS = 20;

const decodeKey = (text: string): Buffer | null => {
  const key = Buffer.from(text.trim(), 'base64');
  return key.length === KEY_BYTES ? key : null;
};

const isCode = (error: unknown, code: string) => (error as { code?: unknown } | null)?.code === code;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const readKey = async (path: string): Promise<Buffer> => {
  for (let attempt = 1; ; attempt += 1) {
    const key = decodeKey(await readFile(path, 'utf8'));
    if (key) return key;
    // Never replace a bad file: every secret sealed under the old key would be lost with it.
    if (attempt >= READ_ATTEMPTS) throw new Error(`key file ${path} does not hold a ${KEY_BYTES}-byte base64 key; fix or remove it`);
    await sleep(READ_RETRY_MS);
  }
};

/**
 * A 32-byte key kept in a file: read, or created with a new random key on first use. Shared by the
 * local sealer and the local code key, each with a file of its own under `.data/`.
 */
export const keyFromFile = async (path: string): Promise<Buffer> => {
  await mkdir(dirname(path), { recursive: true });
  try {
    // `wx` fails if the file exists, so two processes starting at once cannot both write a key.
    await writeFile(path, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!isCode(error, 'EEXIST')) throw error;
  }
  // Read back even after creating it, so whichever process won, all use the key on disk.
  return readKey(path);
};

/**
 * The local sealer: AES-256-GCM straight under one key kept in a file (there is no KMS to wrap a
 * data key). Values it seals name the key by a hash prefix, so a value from another key file is
 * refused by name rather than failing as if it had been altered.
 */
export class KeyFileSealer implements SecretSealer {
  readonly keyId: string;

  private constructor(private readonly key: Buffer) {
    this.keyId = `local:${sha256Hex(key).slice(0, 16)}`;
  }

  /** Reads the key file, or creates it with a new random key on first use. */
  static async fromFile(path: string): Promise<KeyFileSealer> {
    return new KeyFileSealer(await keyFromFile(path));
  }

  /** A random key that lives as long as the object: for tests. */
  static inMemory(): KeyFileSealer {
    return new KeyFileSealer(randomBytes(KEY_BYTES));
  }

  async seal(plaintext: string, context: Record<string, string>): Promise<SealedSecret> {
    return { v: 1, alg: 'A256GCM', keyId: this.keyId, ...sealWithKey(this.key, plaintext, contextAad(context)) };
  }

  async open(sealed: SealedSecret, context: Record<string, string>): Promise<string> {
    if (!isSealedSecret(sealed)) throw new Error('not a sealed secret');
    if (sealed.keyId !== this.keyId) {
      throw new Error(`sealed secret was sealed by key ${sealed.keyId}, not by this key file (${this.keyId}); it cannot be opened here`);
    }
    return openWithKey(this.key, sealed, contextAad(context));
  }
}
