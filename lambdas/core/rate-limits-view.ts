import type { RateLimits } from './model.ts';

/** An organisation's rate limits as the operator CLI prints them and their audit entry records them: snake_case, as the API writes. */
export const rateLimitsView = (limits: RateLimits) => ({ per_key_per_minute: limits.perKeyPerMinute, per_org_per_minute: limits.perOrgPerMinute });
