/// <reference lib="dom" />
/**
 * What a page says in place of a control the organisation's plan does not include. The service
 * decides (lambdas/core/plans.ts) and tells the page (`preset_access` in the answers that offer
 * presets, `webhook_access` in the webhooks list); the page only explains, so nobody fills in a
 * form that would be refused.
 */
import { h } from '../shared/dom.ts';

const PRESETS_NEED_TEAM = 'Presets are part of the Team plan and above; your organisation’s plan does not include them.';

/** The note that stands where the preset controls would be. */
export const presetsNotIncluded = (id: string) => h('p', { id, class: 'notice' }, PRESETS_NEED_TEAM);

const WEBHOOKS_NEED_TEAM =
  'Sending events to your systems is part of the Team plan and above; your organisation’s plan does not include it. Webhooks added before stay listed and send nothing until the plan includes them again; you can still delete them.';

/** The note that stands where the form to add a webhook would be. */
export const webhooksNotIncluded = (id: string) => h('p', { id, class: 'notice' }, WEBHOOKS_NEED_TEAM);
