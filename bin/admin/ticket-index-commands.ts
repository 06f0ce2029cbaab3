import { listOrganisations } from '#store/organisation-list.ts';
import { backfillTicketIndex } from '#store/ticket-index-backfill.ts';
import type { Command } from './commands.ts';
import { EXAMPLE } from './example-values.ts';
import { organisationOf } from './organisation-flag.ts';

export const TICKET_INDEX_COMMANDS: Record<string, Command> = {
  'index-tickets': {
    summary:
      "note the requests and shares of organisations made before the ticket index was kept in it, so a status for a ticket none of them quotes skips the ticket indexes (run once after upgrading; safe to run again)",
    usage: '[--org ORG_ID (default: every organisation)]',
    examples: ['', `--org ${EXAMPLE.org}`, `--table ${EXAMPLE.table} --region ${EXAMPLE.region}`],
    run: async (admin, f, context) => {
      // An --org given is one that exists (refused by name otherwise, never the store's own words).
      const orgIds = f.org !== undefined ? [(await organisationOf(admin, f)).id] : (await listOrganisations(context.db, context.tableName)).map(({ organisation }) => organisation.id);
      const organisations = [];
      for (const orgId of orgIds) organisations.push(await backfillTicketIndex(context.db, context.tableName, orgId));
      return { organisations };
    },
  },
};
