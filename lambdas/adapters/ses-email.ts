import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import type { Notifier } from '#core/ports.ts';

/**
 * Email through SES (SESv2 SendEmail with simple content, never raw MIME), from one sender. A
 * module apart from SMS, so a function that only emails bundles no SNS client. The client is built
 * once per process.
 */
export class SesEmailSender implements Pick<Notifier, 'sendEmail'> {
  constructor(
    private readonly fromAddress: string,
    private readonly ses = new SESv2Client({}),
  ) {}

  async sendEmail(message: { to: string; subject: string; text: string }) {
    await this.ses.send(
      new SendEmailCommand({
        FromEmailAddress: this.fromAddress,
        Destination: { ToAddresses: [message.to] },
        Content: {
          Simple: { Subject: { Data: message.subject, Charset: 'UTF-8' }, Body: { Text: { Data: message.text, Charset: 'UTF-8' } } },
        },
      }),
    );
  }
}
