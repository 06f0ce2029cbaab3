import type { ItemKey } from './keys.ts';

const STORAGE_ATTRIBUTES = new Set(['pk', 'sk', 'kind', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk', 'gsi4pk', 'gsi4sk', 'gsi5pk', 'gsi5sk', 'gsi6pk', 'gsi6sk', 'gsi7pk', 'gsi7sk', 'ttlEpoch']);

/** A domain record as a table item: its key, a `kind` tag, and the record's own fields. */
export const toItem = <T extends object>(key: ItemKey, kind: string, record: T, extra: Record<string, unknown> = {}) => ({
  ...key,
  kind,
  ...extra,
  ...record,
});

/** The domain record back out of an item, without the storage attributes. */
export const fromItem = <T>(item: Record<string, unknown> | undefined): T | null => {
  if (!item) return null;
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!STORAGE_ATTRIBUTES.has(name)) record[name] = value;
  return record as T;
};
