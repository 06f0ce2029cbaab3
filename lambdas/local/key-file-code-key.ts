import { createHmac, randomBytes } from 'node:crypto';
import type { CodeKey } from '#core/code-key.ts';
import { keyFromFile } from './key-file-sealer.ts';

/** The local code key: HMAC-SHA-256 under a key kept in a file beside the data (`.data/code-hash.key`). */
export class KeyFileCodeKey implements CodeKey {
  private constructor(private readonly key: Buffer) {}

  /** Reads the key file, or creates it with a new random key on first use. */
  static async fromFile(path: string): Promise<KeyFileCodeKey> {
    return new KeyFileCodeKey(await keyFromFile(path));
  }

  /** A random key that lives as long as the object: for tests. */
  static inMemory(): KeyFileCodeKey {
    return new KeyFileCodeKey(randomBytes(32));
  }

  async mac(message: string): Promise<string> {
    return createHmac('sha256', this.key).update(message, 'utf8').digest('hex');
  }
}
