import { auditLogView } from '#core/use-cases/audit-log-view.ts';
import { DynamoAuditReader } from '#store/audit-reader.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/audit (owners and admins): the organisation's audit chain, newest first, filtered. */
export const createHandler = (deps: AppDeps) => {
  const auditReader = new DynamoAuditReader(deps.db, deps.tableName);
  return sessionHandler(deps, async ({ caller, event }) => json(200, await auditLogView({ auditReader }, caller, event.queryStringParameters ?? {})));
};

export const handler = lazyHandler(() => createHandler(wiring()));
