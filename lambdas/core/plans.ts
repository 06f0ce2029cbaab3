import { planRequired } from './errors.ts';
import { PLANS, type Plan } from './model.ts';

/**
 * What a plan includes (SPEC.md: the API is Team and above, a request's `preset` is Team and above,
 * the trigger URL needs Team or above; the webhook URL is on every plan). The one rule every way
 * in asks: the API's authorisation, the app's and the operator CLI's preset settings, a request
 * naming a preset whoever creates it, and the trigger URL. Outbound webhooks are the API's
 * (SPEC.md: the API "manages webhook subscriptions"): subscribing, pinging and redelivering in the
 * app and the CLI ask it too, and the fan-out sends nothing to an organisation whose plan lacks it.
 */
const LOWEST_PLAN = {
  api: 'team',
  presets: 'team',
  trigger_url: 'team',
  webhooks: 'team',
} as const satisfies Record<string, Plan>;

export type PlanFeature = keyof typeof LOWEST_PLAN;

const WHAT = { api: 'API access', presets: 'presets', trigger_url: 'the trigger URL', webhooks: 'outbound webhooks' } as const satisfies Record<PlanFeature, string>;

/** Whether an organisation on `plan` may use `feature`: plans are ordered, each includes what the ones below it do. */
export const planIncludes = (plan: Plan, feature: PlanFeature) => PLANS.indexOf(plan) >= PLANS.indexOf(LOWEST_PLAN[feature]);

/** Why a plan refuses `feature`, in words a page, an audit entry or the CLI shows as they are. */
export const planRefusal = (feature: PlanFeature) => {
  const lowest = LOWEST_PLAN[feature];
  return `Your plan does not include ${WHAT[feature]}. Upgrade to ${lowest[0].toUpperCase()}${lowest.slice(1)} or above.`;
};

/** 403 `plan_required` unless the organisation's plan includes `feature`. */
export const requirePlan = (org: { plan: Plan }, feature: PlanFeature) => {
  if (!planIncludes(org.plan, feature)) throw planRequired(planRefusal(feature));
};
