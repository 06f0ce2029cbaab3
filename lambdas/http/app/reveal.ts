import { revealRequest } from '#core/use-cases/member-requests.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/requests/{id}/reveal: the sealed envelope, for the recipient's browser to open.
 * Never logged, and null in an idempotent replay: a kept copy would outlive the purge.
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event, deps: member }) => json(200, await revealRequest(member, caller, pathIdOf(event, 'request'))), {
    idempotent: { secretFields: ['envelope', 'attachments'] },
    takesNoBody: true,
  });

export const handler = lazyHandler(() => createHandler(wiring()));
