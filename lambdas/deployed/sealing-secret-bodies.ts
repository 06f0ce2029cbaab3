import type { DeployedAdapters } from '../wiring.ts';
import { kmsCodeKey } from './kms-code-key.ts';
import { kmsSealing } from './kms-sealing.ts';

/**
 * What the member application's functions that take a secret in their body call (an integration's
 * signing secret, a helpdesk's credentials): KMS sealing for the secret, and the code key for the
 * body's Idempotency-Key fingerprint (session-handler.ts, bodyHoldsSecrets).
 */
export const sealingSecretBodies = (): DeployedAdapters => ({ ...kmsSealing(), ...kmsCodeKey() });
