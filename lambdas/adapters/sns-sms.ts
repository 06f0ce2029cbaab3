import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { Notifier } from '#core/ports.ts';

/**
 * SMS through SNS: a transactional Publish straight to the phone number, never to a topic. A
 * module apart from email, so a function that only emails bundles no SNS client. The client is
 * built once per process.
 */
export class SnsSmsSender implements Pick<Notifier, 'sendSms'> {
  constructor(private readonly sns = new SNSClient({})) {}

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
