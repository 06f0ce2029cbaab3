/**
 * Attachment limits, shared by the subject's browser (which frames and seals each file) and the
 * service (which bounds what it stores). No imports: the subject page bundles this file.
 */
export const MAX_ATTACHMENTS = 5;
/** Per attachment, before encryption; the sealed copy must fit in one table item. */
export const MAX_ATTACHMENT_BYTES = 256 * 1024;
/**
 * The sealed header that carries a file's name and type in front of its bytes: a 4-byte length
 * and UTF-8 JSON. A 200-character name and a 100-character type take at most 1,200 bytes of UTF-8.
 */
export const MAX_ATTACHMENT_HEADER_BYTES = 2048;
export const MAX_ATTACHMENT_NAME_CHARS = 200;
export const MAX_ATTACHMENT_TYPE_CHARS = 100;
