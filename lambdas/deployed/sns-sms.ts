import { SnsSmsSender } from '#adapters/sns-sms.ts';
import type { DeployedAdapters } from '../wiring.ts';

/** SMS through SNS, built on first use: for the functions whose routes send SMS, which alone may publish (lib/api-functions.ts grantSms). */
export const snsSms = (): Pick<DeployedAdapters, 'sms'> => {
  let built: SnsSmsSender | undefined;
  return { sms: { sendSms: (message) => (built ??= new SnsSmsSender()).sendSms(message) } };
};
