import { fromBase64, randomBytes, toBase64, utf8 } from './encoding.ts';
import { ECDH_P256, exportPublicKey, importPublicKey } from './identity.ts';
import { frameFile, unframeFile, type FramedFile } from './attachment-frame.ts';

/**
 * The sealed credential. A random content key encrypts the credential (and attachments) with
 * AES-256-GCM; the content key is wrapped for each recipient with a key agreed by ECDH-ES (one
 * ephemeral P-256 pair per envelope) and derived with HKDF-SHA256, bound to the request id and the
 * recipient's fingerprint. Everything here runs in the browser; the server sees only this object.
 */
export const ENVELOPE_ALGORITHM = 'ECDH-ES+HKDF-SHA256+A256GCM';

export interface WrappedKey {
  membership_id: string;
  fingerprint: string;
  iv: string;
  wrapped_key: string;
}

export interface Envelope {
  version: 1;
  alg: typeof ENVELOPE_ALGORITHM;
  ephemeral_public_key: string;
  iv: string;
  ciphertext: string;
  recipients: WrappedKey[];
}

/** A sealed file: its name, type and bytes are all inside the ciphertext (attachment-frame.ts). */
export interface SealedAttachment {
  iv: string;
  ciphertext: string;
}

export interface RecipientPublicKey {
  membershipId: string;
  fingerprint: string;
  publicKey: string;
}

const keyEncryptionKey = async (ownPrivate: CryptoKey, peerPublic: CryptoKey, requestId: string, fingerprint: string) => {
  const shared = await crypto.subtle.deriveBits({ name: 'ECDH', public: peerPublic }, ownPrivate, 256);
  const material = await crypto.subtle.importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: utf8(`handoff/v1/${requestId}`), info: utf8(`content-key/${fingerprint}`) },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
};

const aesGcm = (raw: Uint8Array<ArrayBuffer>, usages: KeyUsage[]) => crypto.subtle.importKey('raw', raw, 'AES-GCM', false, usages);

/** Seals `plaintext` for every recipient; returns the envelope and the content key for attachments. */
export const seal = async (plaintext: string, recipients: RecipientPublicKey[], requestId: string) => {
  const contentKeyBytes = randomBytes(32);
  const contentKey = await aesGcm(contentKeyBytes, ['encrypt']);
  const iv = randomBytes(12);
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8(requestId) }, contentKey, utf8(plaintext));
  const ephemeral = (await crypto.subtle.generateKey(ECDH_P256, true, ['deriveBits'])) as CryptoKeyPair;
  const wrapped = await Promise.all(
    recipients.map(async (recipient) => {
      const kek = await keyEncryptionKey(ephemeral.privateKey, await importPublicKey(recipient.publicKey), requestId, recipient.fingerprint);
      const wrapIv = randomBytes(12);
      const wrappedKey = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: wrapIv }, kek, contentKeyBytes);
      return { membership_id: recipient.membershipId, fingerprint: recipient.fingerprint, iv: toBase64(wrapIv), wrapped_key: toBase64(wrappedKey) };
    }),
  );
  contentKeyBytes.fill(0);
  const envelope: Envelope = {
    version: 1,
    alg: ENVELOPE_ALGORITHM,
    ephemeral_public_key: await exportPublicKey(ephemeral.publicKey),
    iv: toBase64(iv),
    ciphertext: toBase64(ciphertext),
    recipients: wrapped,
  };
  return { envelope, contentKey };
};

/**
 * Which file of how many an attachment is. The credential's plaintext says how many files were
 * sent (`attachments`), and each file's AES-GCM additional data says its place among them, so a
 * file dropped, repeated or moved by whoever holds the stored record fails to open, not only a
 * file from another request.
 */
export interface AttachmentPlace {
  index: number;
  count: number;
}

/**
 * An attachment's additional data: the request, and its place. Without a place it is the form of
 * files sealed before places were bound (their credential's plaintext has no `attachments`).
 */
const attachmentBinding = (requestId: string, place: AttachmentPlace | null) =>
  utf8(place ? `${requestId}/attachment/${place.index}/${place.count}` : `${requestId}/attachment`);

export const sealAttachment = async (contentKey: CryptoKey, file: FramedFile, requestId: string, place: AttachmentPlace): Promise<SealedAttachment> => {
  const iv = randomBytes(12);
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: attachmentBinding(requestId, place) }, contentKey, frameFile(file));
  return { iv: toBase64(iv), ciphertext: toBase64(ciphertext) };
};

/** Opens the envelope with this recipient's private key; returns the plaintext and a key for attachments. */
export const open = async (envelope: Envelope, privateKey: CryptoKey, fingerprint: string, requestId: string) => {
  const mine = envelope.recipients.find((r) => r.fingerprint === fingerprint);
  if (!mine) throw new Error('This credential was not sealed to your key.');
  const kek = await keyEncryptionKey(privateKey, await importPublicKey(envelope.ephemeral_public_key), requestId, fingerprint);
  const contentKeyBytes = new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(mine.iv) }, kek, fromBase64(mine.wrapped_key)));
  const contentKey = await aesGcm(contentKeyBytes, ['decrypt']);
  contentKeyBytes.fill(0);
  const plaintext = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64(envelope.iv), additionalData: utf8(requestId) },
    contentKey,
    fromBase64(envelope.ciphertext),
  );
  return { plaintext: new TextDecoder().decode(plaintext), contentKey };
};

/** The file's name, type and bytes; `place` null only for files sealed before places were bound. */
export const openAttachment = async (contentKey: CryptoKey, attachment: SealedAttachment, requestId: string, place: AttachmentPlace | null): Promise<FramedFile> =>
  unframeFile(
    new Uint8Array(
      await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: fromBase64(attachment.iv), additionalData: attachmentBinding(requestId, place) },
        contentKey,
        fromBase64(attachment.ciphertext),
      ),
    ),
  );
