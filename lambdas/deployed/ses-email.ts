import { SesEmailSender } from '#adapters/ses-email.ts';
import { required, type DeployedAdapters } from '../wiring.ts';

/**
 * Email through SES from EMAIL_FROM_ADDRESS, built on first use: for the functions whose routes
 * send email, which alone have ses:SendEmail (lib/api-functions.ts grantEmail).
 */
export const sesEmail = (): Pick<DeployedAdapters, 'email'> => {
  let built: SesEmailSender | undefined;
  return { email: { sendEmail: (message) => (built ??= new SesEmailSender(required('EMAIL_FROM_ADDRESS'))).sendEmail(message) } };
};
