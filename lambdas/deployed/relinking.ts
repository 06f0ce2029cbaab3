import type { DeployedAdapters } from '../wiring.ts';
import { expirySchedules } from './eventbridge-schedules.ts';
import { kmsCodeKey } from './kms-code-key.ts';

/**
 * What every function that relinks a request calls (the API's and the member app's): the expiry
 * armed anew, and, as a new link of a request verified by a challenge code comes with a new code,
 * that code hashed with the code key.
 */
export const relinking = (): DeployedAdapters => ({ ...expirySchedules(), ...kmsCodeKey() });
