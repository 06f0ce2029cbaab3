/// <reference lib="dom" />
/**
 * What a page says in place of a control the organisation's plan does not include. The service
 * decides (lambdas/core/plans.ts) and tells the page (`preset_access` in the answers that offer
 * presets); the page only explains, so nobody fills in a form that would be refused.
 */
import { h } from '../shared/dom.ts';

const PRESETS_NEED_TEAM = 'Presets are part of the Team plan and above; your organisation’s plan does not include them.';

/** The note that stands where the preset controls would be. */
export const presetsNotIncluded = (id: string) => h('p', { id, class: 'notice' }, PRESETS_NEED_TEAM);
