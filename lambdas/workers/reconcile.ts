import { reconcileTickets, type ReconcileDeps, type ReconcileSummary } from '#core/use-cases/tickets/reconcile-tickets.ts';
import type { AppDeps } from '../app-deps.ts';
import { DynamoHelpdeskLinks } from '#store/helpdesk-links.ts';
import { withHelpdesks } from '../helpdesk-wiring.ts';
import { wiring } from '../wiring.ts';
import { withShareStore } from '../store-wiring.ts';
import { kmsSealing } from '../deployed/kms-sealing.ts';
import { expiryAndPurgeSchedules } from '../deployed/eventbridge-schedules.ts';

/**
 * The reconciliation, run every two minutes deployed (an EventBridge Scheduler schedule) and every minute
 * locally: reads the linked tickets of live requests through their helpdesks, so a close
 * destroys the credential even when no webhook came (reconcile-tickets.ts). Logs counts only.
 */
export const createHandler = (deps: ReconcileDeps & { logger: Pick<AppDeps['logger'], 'info' | 'debug'> }) =>
  async (): Promise<ReconcileSummary> => {
    const summary = await reconcileTickets(deps);
    if (summary.read > 0 || summary.failed > 0) deps.logger.info('ticket reconciliation', { ...summary });
    else deps.logger.debug('ticket reconciliation', { ...summary });
    return summary;
  };

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = () => (built ??= createHandler(withHelpdeskLinks(withShareStore(withHelpdesks(wiring({ ...kmsSealing(), ...expiryAndPurgeSchedules() }))))))();

/** The reconciliation's own reads (store/helpdesk-links.ts), over the wired table. */
export const withHelpdeskLinks = <Deps extends AppDeps>(deps: Deps): Deps & { helpdeskLinks: DynamoHelpdeskLinks } => ({
  ...deps,
  helpdeskLinks: new DynamoHelpdeskLinks(deps.db, deps.tableName),
});
