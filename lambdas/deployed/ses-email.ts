import { SesEmailSender } from '#adapters/ses-email.ts';
import { required, type DeployedAdapters } from '../wiring.ts';
import { onFirstUse } from './on-first-use.ts';

/**
 * Email through SES from EMAIL_FROM_ADDRESS, built on first use: for the functions whose routes
 * send email, which alone have ses:SendEmail (lib/api-functions.ts grantEmail).
 */
export const sesEmail = (): Pick<DeployedAdapters, 'email'> => {
  const sender = onFirstUse(() => new SesEmailSender(required('EMAIL_FROM_ADDRESS')));
  return { email: { sendEmail: (message) => sender().sendEmail(message) } };
};
