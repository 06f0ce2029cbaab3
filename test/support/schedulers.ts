import type { ExpiryScheduler } from '../../lambdas/core/ports.ts';

/** Records what the handlers ask of a one-time scheduler (expiry or purge); it fires nothing. */
export const recordingScheduler = () => {
  const calls: string[] = [];
  const scheduler: ExpiryScheduler = {
    schedule: async (requestId, atIso) => void calls.push(`schedule ${requestId} ${atIso}`),
    cancel: async (requestId) => void calls.push(`cancel ${requestId}`),
  };
  return { calls, scheduler };
};
