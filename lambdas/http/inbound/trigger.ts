import type { AppDeps } from '../../app-deps.ts';
import { withTicketReplies } from '../../ticket-reply-wiring.ts';
import { wiring } from '../../wiring.ts';
import { requestCreation } from '../../deployed/request-creation.ts';
import { kmsSealing } from '../../deployed/kms-sealing.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { triggerAction } from '#core/use-cases/inbound/trigger-action.ts';
import { inboundHandler } from './inbound-handler.ts';

/** POST /inbound/ticket-trigger/{secret}: an integration's trigger URL (a request for a ticket). */
export const createHandler = (deps: AppDeps) => inboundHandler(deps, triggerAction);

export const handler = lazyHandler(() => createHandler(withTicketReplies(wiring({ ...requestCreation(), ...kmsSealing() }))));
