/**
 * The one rule of what a plan includes (lambdas/core/plans.ts): the API, presets and the trigger
 * URL and outbound webhooks are Team and above; the refusal is SPEC.md's 403 `plan_required` with the reason in words.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/core/errors.ts';
import { PLANS } from '../../lambdas/core/model.ts';
import { planIncludes, planRefusal, requirePlan, type PlanFeature } from '../../lambdas/core/plans.ts';

const FEATURES: PlanFeature[] = ['api', 'presets', 'trigger_url', 'webhooks'];

describe('what a plan includes', () => {
  it('Free includes none of the features; Team and Business include them all', () => {
    for (const feature of FEATURES) {
      expect(PLANS.map((plan) => planIncludes(plan, feature)), feature).toEqual([false, true, true]);
    }
  });

  it('a refusal is 403 plan_required, saying what is missing and which plan has it', () => {
    expect(planRefusal('presets')).toBe('Your plan does not include presets. Upgrade to Team or above.');
    expect(planRefusal('api')).toBe('Your plan does not include API access. Upgrade to Team or above.');
    const refused = (() => {
      try {
        requirePlan({ plan: 'free' }, 'trigger_url');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, code: 'plan_required', message: planRefusal('trigger_url') });
    expect(() => requirePlan({ plan: 'team' }, 'trigger_url')).not.toThrow();
  });
});
