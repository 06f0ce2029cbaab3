import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../api-handler.ts';
import { inboundHandler } from './inbound-handler.ts';

/** POST /inbound/ticket-status/{secret}: an integration's webhook URL (ticket status changes). */
export const createHandler = (deps: AppDeps) => inboundHandler(deps, 'status');

export const handler = lazyHandler(() => createHandler(wiring()));
