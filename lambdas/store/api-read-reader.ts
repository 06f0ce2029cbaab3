import { encodeTime } from 'ulid';
import type { ApiReadPage, ApiReadQuery, StoredApiRead } from '#core/use-cases/api-read-view.ts';
import { boundedQuery } from './bounded-query.ts';
import type { Documents } from './dynamo.ts';
import { fromItem } from './items.ts';
import { keys } from './keys.ts';

/**
 * Below the sort key of every record made at or after `iso`, and above that of every record made
 * before it: a ULID starts with its time in ten characters, and a record's key is longer than this.
 * A ULID cannot encode a time before 1970, when every record is after anyway.
 */
const sortKeyAt = (iso: string) => `${keys.apiReadPrefix}${encodeTime(Math.max(0, Date.parse(iso)), 10).toLowerCase()}`;
/**
 * The greatest sort key below `sk`, for BETWEEN (which includes its bounds): the last character one
 * lower. Every record's key has the same length, so any key below `sk` is at or below this one.
 */
const justBelow = (sk: string) => `${sk.slice(0, -1)}${String.fromCharCode(sk.charCodeAt(sk.length - 1) - 1)}`;
/** Above every record's key (`~` sorts after the ULID alphabet). */
const AFTER_ALL = `${keys.apiReadPrefix}~`;

/**
 * An organisation's API read records, newest first, for the member application's audit log: the
 * time range and cursor are sort-key bounds, the key and request filters run in DynamoDB, and
 * `maxRead` bounds how many stored records one call evaluates (bounded-query.ts).
 */
export class DynamoApiReadReader {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async read(query: ApiReadQuery): Promise<ApiReadPage> {
    const upper = [query.toIso ? sortKeyAt(query.toIso) : AFTER_ALL, query.beforeId ? justBelow(keys.apiRead(query.orgId, query.beforeId).sk) : AFTER_ALL].sort()[0]!;
    const lower = sortKeyAt(query.fromIso);
    if (upper < lower) return { reads: [], lastReadId: null, exhausted: true };
    const names: Record<string, string> = { '#kind': 'kind' };
    const values: Record<string, unknown> = { ':pk': keys.apiReadsOfOrg(query.orgId), ':from': lower, ':to': upper, ':kind': 'api_read' };
    const filters = ['#kind = :kind'];
    if (query.keyId) {
      Object.assign(names, { '#key': 'key', '#keyId': 'id' });
      values[':key'] = query.keyId;
      filters.push('#key.#keyId = :key');
    }
    if (query.requestId) {
      Object.assign(names, { '#records': 'records', '#requests': 'requests' });
      values[':request'] = query.requestId;
      filters.push('contains(#records.#requests, :request)');
    }
    const page = await boundedQuery(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ConsistentRead: true,
        ScanIndexForward: false,
      },
      query.limit,
      query.maxRead,
    );
    const lastSk = page.lastReadKey?.sk as string | undefined;
    return {
      reads: page.items.map((item) => fromItem<StoredApiRead>(item)!),
      lastReadId: lastSk ? lastSk.slice(keys.apiReadPrefix.length) : null,
      exhausted: page.exhausted,
    };
  }
}
