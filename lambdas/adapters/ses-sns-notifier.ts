import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { Notifier } from '#core/ports.ts';

/** Email through SES, SMS through SNS. Clients are built once per process. */
export class AwsNotifier implements Notifier {
  constructor(
    private readonly fromAddress: string,
    private readonly ses = new SESv2Client({}),
    private readonly sns = new SNSClient({}),
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

  async sendSms(message: { to: string; text: string }) {
    await this.sns.send(
      new PublishCommand({
        PhoneNumber: message.to,
        Message: message.text,
        MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
      }),
    );
  }
}
