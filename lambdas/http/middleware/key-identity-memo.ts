import { setNewest } from '#core/bounded-map.ts';

/**
 * Which key id and organisation a key hash belongs to, remembered per warm function.
 *
 * Only facts that never change are kept: a key's id and its organisation are fixed when it is
 * made. Whether the key is still valid (revoked, expired) is read from the table on every call,
 * so a revocation still takes effect on the very next call. Knowing the identity up front lets
 * the rate count and the organisation read start beside the key read instead of after it: one
 * table round trip on the path of every call instead of two.
 */
export interface KeyIdentity {
  keyId: string;
  orgId: string;
}

/** Enough for every key a busy organisation uses against one warm function; the oldest go first. */
const CAPACITY = 1000;

export class KeyIdentityMemo {
  private readonly byHash = new Map<string, KeyIdentity>();

  constructor(private readonly capacity = CAPACITY) {}

  get(hash: string): KeyIdentity | undefined {
    return this.byHash.get(hash);
  }

  /** A key found invalid (revoked, expired, gone): its calls no longer start a count before the key read. */
  forget(hash: string) {
    this.byHash.delete(hash);
  }

  remember(hash: string, identity: KeyIdentity) {
    if (!this.byHash.has(hash)) setNewest(this.byHash, hash, identity, this.capacity);
  }
}
