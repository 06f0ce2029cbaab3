import { SnsSmsSender } from '#adapters/sns-sms.ts';
import type { DeployedAdapters } from '../wiring.ts';
import { onFirstUse } from './on-first-use.ts';

/** SMS through SNS, built on first use: for the functions whose routes send SMS, which alone may publish (lib/api-functions.ts grantSms). */
export const snsSms = (): Pick<DeployedAdapters, 'sms'> => {
  const sender = onFirstUse(() => new SnsSmsSender());
  return { sms: { sendSms: (message) => sender().sendSms(message) } };
};
