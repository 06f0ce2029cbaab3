import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../api-handler.ts';
import { inboundHandler } from './inbound-handler.ts';

/** POST /inbound/ticket-trigger/{secret}: an integration's trigger URL (a request for a ticket). */
export const createHandler = (deps: AppDeps) => inboundHandler(deps, 'trigger');

export const handler = lazyHandler(() => createHandler(wiring()));
