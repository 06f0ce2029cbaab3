import type { HandoffRequest } from '#core/model.ts';
import type { RequestRepository } from '#core/ports.ts';
import type { IndexedTicketRequests, TicketLinks } from '#core/ticket-links.ts';
import type { Documents } from './dynamo.ts';
import { fromItem } from './items.ts';
import { keys } from './keys.ts';
import { queryIndexItems } from './query-prefix.ts';
import { INDEXES, type IndexDefinition } from './table.ts';
import { ticketRecordIds } from './ticket-index.ts';

/**
 * The requests of a ticket as the ticket indexes hold them (they project every attribute), without
 * the fresh read of each that DynamoRequests.findByTicket makes. Only for a caller whose writes
 * are all conditioned on the version they read (core/ticket-links.ts); built by the function that
 * reads it (the webhook URL's) alone.
 */
export class DynamoIndexedTicketRequests implements IndexedTicketRequests {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly requests: Pick<RequestRepository, 'get'>,
  ) {}

  async findByTicket(orgId: string, ref: string, kinds: Pick<TicketLinks, 'quoted' | 'linked'>, limit = 500): Promise<HandoffRequest[]> {
    const byIndex = async (wanted: boolean, index: IndexDefinition, partition: string) =>
      wanted ? queryIndexItems(this.db, this.tableName, index, partition, limit) : [];
    const [quoted, linked, noted] = await Promise.all([
      byIndex(kinds.quoted, INDEXES.byTicket, keys.requestsOfTicket(orgId, ref)),
      byIndex(kinds.linked, INDEXES.byExternalTicket, keys.requestsOfExternalTicket(orgId, ref)),
      ticketRecordIds(this.db, this.tableName, orgId, ref, 'request', limit),
    ]);
    // A request both quoting and linked to the ticket is in both indexes: once, oldest first.
    const byId = new Map<string, HandoffRequest | null>([...quoted, ...linked].map((item) => [item.id as string, fromItem<HandoffRequest>(item)]));
    // The GSIs lag deployed: a request the ticket index notes that they do not list yet is read from the table.
    const unlisted = noted.filter((id) => !byId.has(id));
    const fresh = await Promise.all(unlisted.map((id) => this.requests.get(id)));
    unlisted.forEach((id, index) => byId.set(id, fresh[index]));
    return [...byId.keys()]
      .sort()
      .map((id) => byId.get(id))
      .filter((request): request is HandoffRequest => request != null && request.orgId === orgId);
  }
}
