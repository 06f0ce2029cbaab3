import { MAX_ATTACHMENT_HEADER_BYTES, MAX_ATTACHMENT_NAME_CHARS, MAX_ATTACHMENT_TYPE_CHARS } from '../../lambdas/core/attachment-limits.ts';

/**
 * What is sealed for one attached file: its name and type travel inside the ciphertext with its
 * bytes, because a file name can itself be the secret ("vpn-password-Hunter2.txt"). The service
 * stores only the sealed frame and sees neither.
 *
 * Layout: a 4-byte big-endian header length, the header as UTF-8 JSON {"name", "type"}, the bytes.
 */
export interface FramedFile {
  name: string;
  type: string;
  bytes: Uint8Array<ArrayBuffer>;
}

const DEFAULT_TYPE = 'application/octet-stream';

export const frameFile = (file: FramedFile): Uint8Array<ArrayBuffer> => {
  const header = new TextEncoder().encode(
    JSON.stringify({ name: file.name.slice(0, MAX_ATTACHMENT_NAME_CHARS), type: (file.type || DEFAULT_TYPE).slice(0, MAX_ATTACHMENT_TYPE_CHARS) }),
  );
  if (header.byteLength > MAX_ATTACHMENT_HEADER_BYTES) throw new Error('The file name is too long.');
  const framed = new Uint8Array(4 + header.byteLength + file.bytes.byteLength);
  new DataView(framed.buffer).setUint32(0, header.byteLength);
  framed.set(header, 4);
  framed.set(file.bytes, 4 + header.byteLength);
  return framed;
};

export const unframeFile = (framed: Uint8Array): FramedFile => {
  if (framed.byteLength < 4) throw new Error('The file is damaged.');
  const headerLength = new DataView(framed.buffer, framed.byteOffset, framed.byteLength).getUint32(0);
  if (headerLength > MAX_ATTACHMENT_HEADER_BYTES || 4 + headerLength > framed.byteLength) throw new Error('The file is damaged.');
  const header = JSON.parse(new TextDecoder().decode(framed.subarray(4, 4 + headerLength))) as Partial<FramedFile>;
  const bytes = new Uint8Array(framed.byteLength - 4 - headerLength);
  bytes.set(framed.subarray(4 + headerLength));
  return {
    name: typeof header.name === 'string' && header.name ? header.name : 'attachment',
    type: typeof header.type === 'string' && header.type ? header.type : DEFAULT_TYPE,
    bytes,
  };
};
