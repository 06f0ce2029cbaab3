/**
 * An item's size as DynamoDB bills it, from its stored (marshalled) form, by the rules of the
 * DynamoDB developer guide ("Item sizes and formats"): each attribute is its name's UTF-8 bytes
 * plus its value's size; a number about one byte per two significant digits plus one; a list or
 * map 3 bytes plus one per element; a Boolean or null 1 byte.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type StoredItem = Record<string, AttributeValue>;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** Significant digits, without sign, point, exponent, or leading and trailing zeros. */
const numberSize = (text: string) => {
  const mantissa = text.replace(/^[-+]/, '').replace(/[eE].*$/, '').replace('.', '');
  const digits = mantissa.replace(/^0+/, '').replace(/0+$/, '').length || 1;
  return Math.ceil(digits / 2) + 1;
};

const valueSize = (value: AttributeValue): number => {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, item) => sum + utf8(item), 0);
  if (value.NS) return value.NS.reduce((sum, item) => sum + numberSize(item), 0);
  if (value.BS) return value.BS.reduce((sum, item) => sum + item.byteLength, 0);
  if (value.L) return 3 + value.L.reduce((sum, item) => sum + valueSize(item) + 1, 0);
  if (value.M) return 3 + Object.entries(value.M).reduce((sum, [name, item]) => sum + utf8(name) + valueSize(item) + 1, 0);
  return 0;
};

export const itemSize = (item: StoredItem) => Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);

/** Write units of one item write: one per started kilobyte, at least one. */
export const writeUnitsOf = (item: StoredItem | undefined) => (item ? Math.max(1, Math.ceil(itemSize(item) / 1024)) : 0);
