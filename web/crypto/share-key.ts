import { open, seal, type Envelope } from './envelope.ts';
import { ECDH_P256, exportPublicKey, fingerprintOf, halvesAgree } from './identity.ts';

/**
 * The one-time recipient key of a share (docs/web-api.md, Shares), used by the member app (which
 * makes it and seals to it) and the recipient's page /s/<token>#<key> (which opens with it).
 *
 * The envelope is exactly a request's (envelope.ts) with one recipient, membership id
 * `share-recipient`, and the binding `share/<fingerprint>` where a request uses its id (HKDF salt
 * and AAD). The private key travels only in the link's fragment, which browsers never send to a
 * server: base64url of the private JWK's `d`, `x` and `y` joined by dots (three 43-character
 * parts). The page rebuilds both halves from it and recomputes the fingerprint, so it can check
 * that the server's share is sealed to this very key before opening anything.
 *
 * Works in browsers and in Node 20 (WebCrypto only).
 */
export const SHARE_RECIPIENT_ID = 'share-recipient';

export const shareBinding = (fingerprint: string) => `share/${fingerprint}`;

export interface ShareKey {
  privateKey: CryptoKey;
  /** SPKI DER, base64. */
  publicKey: string;
  /** SHA-256 hex of the SPKI DER, as the service stores it (`sealed_to_fingerprint`). */
  fingerprint: string;
  /** What goes after the "#" of the link. */
  fragment: string;
}

/** The fragment could not be read as a key: missing, malformed, or its halves do not belong together. */
export class ShareKeyError extends Error {
  override readonly name = 'ShareKeyError';
  constructor(
    readonly problem: 'missing' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

const PART = /^[A-Za-z0-9_-]{43}$/;

/** A fresh one-time pair (extractable: its private half becomes the fragment). */
export const makeShareKey = async (): Promise<ShareKey> => {
  const pair = (await crypto.subtle.generateKey(ECDH_P256, true, ['deriveBits'])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  if (!jwk.d || !jwk.x || !jwk.y) throw new Error('the browser exported no private key');
  const publicKey = await exportPublicKey(pair.publicKey);
  return { privateKey: pair.privateKey, publicKey, fingerprint: await fingerprintOf(publicKey), fragment: `${jwk.d}.${jwk.x}.${jwk.y}` };
};

/** Rebuilds the key from a link's fragment (with or without the leading "#"). */
export const decodeShareFragment = async (fragment: string): Promise<ShareKey> => {
  const text = fragment.replace(/^#/, '').trim();
  if (!text) throw new ShareKeyError('missing', 'The link has no key after the "#".');
  const parts = text.split('.');
  if (parts.length !== 3 || !parts.every((part) => PART.test(part))) throw new ShareKeyError('malformed', 'The key after the "#" is damaged or incomplete.');
  const [d, x, y] = parts;
  let privateKey: CryptoKey;
  let publicCryptoKey: CryptoKey;
  try {
    privateKey = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', d, x, y, ext: true }, ECDH_P256, false, ['deriveBits']);
    publicCryptoKey = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x, y, ext: true }, ECDH_P256, true, []);
  } catch {
    throw new ShareKeyError('malformed', 'The key after the "#" is not a valid key.');
  }
  if (!(await halvesAgree(privateKey, publicCryptoKey).catch(() => false))) {
    throw new ShareKeyError('malformed', 'The key after the "#" is not a valid key.');
  }
  const publicKey = await exportPublicKey(publicCryptoKey);
  return { privateKey, publicKey, fingerprint: await fingerprintOf(publicKey), fragment: text };
};

/** What a share carries: the credential, and a note if one is ever added (the request envelope's plaintext shape). */
export interface SharePayload {
  credential: string;
  note?: string;
}

/** Seals the credential to the one-time key: the envelope `POST /app/api/shares` takes. */
export const sealShare = async (payload: SharePayload, key: Pick<ShareKey, 'publicKey' | 'fingerprint'>): Promise<Envelope> => {
  const recipient = { membershipId: SHARE_RECIPIENT_ID, fingerprint: key.fingerprint, publicKey: key.publicKey };
  const { envelope } = await seal(JSON.stringify(payload), [recipient], shareBinding(key.fingerprint));
  return envelope;
};

/** Whether an envelope is sealed to exactly this one key, as a share's must be. */
export const sealedToOnly = (envelope: Envelope, fingerprint: string) =>
  Array.isArray(envelope?.recipients) &&
  envelope.recipients.length === 1 &&
  envelope.recipients[0].membership_id === SHARE_RECIPIENT_ID &&
  envelope.recipients[0].fingerprint === fingerprint;

/** Opens a share's envelope with the key from the fragment. A plaintext that is not the JSON payload is taken as the credential itself. */
export const openShare = async (envelope: Envelope, key: Pick<ShareKey, 'privateKey' | 'fingerprint'>): Promise<SharePayload> => {
  const { plaintext } = await open(envelope, key.privateKey, key.fingerprint, shareBinding(key.fingerprint));
  try {
    const parsed = JSON.parse(plaintext) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as SharePayload).credential === 'string') {
      const { credential, note } = parsed as SharePayload;
      return typeof note === 'string' && note ? { credential, note } : { credential };
    }
  } catch {
    // not JSON: the plaintext is the credential
  }
  return { credential: plaintext };
};

/**
 * A random password from the browser's CSPRNG: letters, digits and symbols, at least one of each
 * class when the length allows, without modulo bias (rejection sampling).
 */
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';
const SYMBOLS = '!#$%&*+-=?@^_~';
const ALL = LOWER + UPPER + DIGITS + SYMBOLS;

const randomIndex = (below: number) => {
  const limit = Math.floor(256 / below) * below;
  for (;;) {
    const [byte] = crypto.getRandomValues(new Uint8Array(1));
    if (byte < limit) return byte % below;
  }
};

export const PASSWORD_LENGTH = { min: 8, max: 128, default: 24 } as const;

export const generatePassword = (length: number = PASSWORD_LENGTH.default) => {
  const size = Math.min(PASSWORD_LENGTH.max, Math.max(PASSWORD_LENGTH.min, Math.floor(length)));
  for (;;) {
    const chars = Array.from({ length: size }, () => ALL[randomIndex(ALL.length)]);
    const password = chars.join('');
    if ([LOWER, UPPER, DIGITS, SYMBOLS].every((set) => [...password].some((char) => set.includes(char)))) return password;
  }
};
