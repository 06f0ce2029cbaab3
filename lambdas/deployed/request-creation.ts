import type { DeployedAdapters } from '../wiring.ts';
import { expirySchedules } from './eventbridge-schedules.ts';
import { kmsCodeKey } from './kms-code-key.ts';
import { sesEmail } from './ses-email.ts';
import { snsSms } from './sns-sms.ts';

/**
 * What every function that creates a request calls (the API's, the member app's and a ticket
 * trigger's): the link sent by email or SMS, the expiry armed, the challenge code hashed.
 */
export const requestCreation = (): DeployedAdapters => ({ ...sesEmail(), ...snsSms(), ...expirySchedules(), ...kmsCodeKey() });
