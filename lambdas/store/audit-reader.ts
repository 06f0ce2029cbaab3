import type { AuditLogPage, AuditLogQuery } from '#core/use-cases/audit-log-view.ts';
import type { Documents } from './dynamo.ts';
import { auditSortKey, keys } from './keys.ts';
import { readChain } from './chain-read.ts';

/**
 * The organisation's chain, newest first, for the member application's audit log: the filters
 * (type, request, acting member, time) run in DynamoDB, and `maxRead` bounds how many stored
 * entries one call evaluates, so a filter that matches little still answers quickly and says
 * where to go on from.
 */
export class DynamoAuditReader {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async read(query: AuditLogQuery): Promise<AuditLogPage> {
    const names: Record<string, string> = { '#kind': 'kind' };
    const values: Record<string, unknown> = {
      ':pk': keys.auditEntry(query.orgId, 0).pk,
      ':from': auditSortKey(1),
      ':to': auditSortKey(Math.max(0, query.beforeSeq - 1)),
      ':kind': 'audit',
    };
    const filters = ['#kind = :kind'];
    const equal = (attribute: string, value: unknown, name: string) => {
      names[`#${name}`] = attribute;
      values[`:${name}`] = value;
      filters.push(`#${name} = :${name}`);
    };
    if (query.type) equal('type', query.type, 'type');
    if (query.requestId) equal('requestId', query.requestId, 'request');
    if (query.memberId) {
      names['#actor'] = 'actor';
      names['#actorId'] = 'id';
      values[':member'] = query.memberId;
      filters.push('#actor.#actorId = :member');
    }
    if (query.fromIso) {
      names['#at'] = 'occurredAt';
      values[':fromAt'] = query.fromIso;
      filters.push('#at >= :fromAt');
    }
    if (query.toIso) {
      names['#at'] = 'occurredAt';
      values[':toAt'] = query.toIso;
      filters.push('#at < :toAt');
    }
    if (query.beforeSeq <= 1) return { entries: [], lastReadSeq: null, exhausted: true };
    return readChain(this.db, this.tableName, { filters, names, values, oldestFirst: false, limit: query.limit, maxRead: query.maxRead });
  }
}
