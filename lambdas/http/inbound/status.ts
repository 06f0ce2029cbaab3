import type { AppDeps } from '../../app-deps.ts';
import { withTicketChecks } from '../../ticket-check-wiring.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore } from '../../store-wiring.ts';
import { expiryAndPurgeSchedules } from '../../deployed/eventbridge-schedules.ts';
import { kmsSealing } from '../../deployed/kms-sealing.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { statusAction } from '#core/use-cases/inbound/status-action.ts';
import { InboundUrlMemory } from '#core/use-cases/inbound/url-memory.ts';
import { DynamoIndexedTicketRequests } from '#store/indexed-ticket-requests.ts';
import { DynamoTicketIndex } from '#store/ticket-index.ts';
import { inboundHandler } from './inbound-handler.ts';

/** POST /inbound/ticket-status/{secret}: an integration's webhook URL (ticket status changes). */
export const createHandler = (deps: AppDeps) => {
  const urlMemory = new InboundUrlMemory();
  return inboundHandler(deps, statusAction, {
    ticketIndex: new DynamoTicketIndex(deps.db, deps.tableName),
    indexedRequests: new DynamoIndexedTicketRequests(deps.db, deps.tableName, deps.requests),
    urlMemory,
    integrations: urlMemory.over(deps.integrations),
  });
};

export const handler = lazyHandler(() => createHandler(withShareStore(withTicketChecks(wiring({ ...expiryAndPurgeSchedules(), ...kmsSealing() })))));
