import type { HandoffRequest } from './model.ts';

/**
 * What the ticket index (store/ticket-index.ts) knows of one ticket reference in an organisation:
 * which kinds of record quote or link it. A status for a ticket nothing quotes (most posts a
 * helpdesk sends) is then answered without looking through the ticket indexes, and a status for
 * a quoted ticket looks only where its records are.
 */
export interface TicketLinks {
  /** Some request quotes it as its ticket reference. */
  quoted: boolean;
  /** Some request is linked to it by its integration's own ticket id. */
  linked: boolean;
  /** Some share quotes it. */
  shared: boolean;
}

/** The kinds of record that note a ticket in the index when they are created. */
export type TicketLinkKind = keyof TicketLinks;

export interface TicketIndex {
  /**
   * What the index holds of `ref`: no kind at all when no record noted it. That answers for every
   * record only where the organisation is covered (Organisation.ticketIndexCovered): records from
   * before the index was kept were not noted.
   */
  linksOf(orgId: string, ref: string): Promise<TicketLinks>;
}

/** The requests of a ticket as the ticket indexes hold them (store/indexed-ticket-requests.ts). */
export interface IndexedTicketRequests {
  /**
   * The organisation's requests quoting (`kinds.quoted`) or linked to (`kinds.linked`) `ref`,
   * oldest first, as the indexes hold them: maybe a moment old. For a caller whose every write is
   * conditioned on the version it read, and which leaves a request alone only once it has ended for
   * good, reading again one that a relink could have revived (revoked, or expired unsubmitted).
   * Requests the ticket index's own items name and the GSIs do not list yet are read from the table.
   */
  findByTicket(orgId: string, ref: string, kinds: Pick<TicketLinks, 'quoted' | 'linked'>): Promise<HandoffRequest[]>;
}
