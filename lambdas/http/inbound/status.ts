import type { AppDeps } from '../../app-deps.ts';
import { withTicketChecks } from '../../helpdesk-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { statusAction } from '#core/use-cases/inbound/status-action.ts';
import { inboundHandler } from './inbound-handler.ts';

/** POST /inbound/ticket-status/{secret}: an integration's webhook URL (ticket status changes). */
export const createHandler = (deps: AppDeps) => inboundHandler(deps, statusAction);

export const handler = lazyHandler(() => createHandler(withTicketChecks(wiring())));
