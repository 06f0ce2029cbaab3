import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SesEmailSender } from '../../../lambdas/adapters/ses-email.ts';
import { SnsSmsSender } from '../../../lambdas/adapters/sns-sms.ts';
import type { Notifier } from '../../../lambdas/core/ports.ts';

const ses = mockClient(SESv2Client);
const sns = mockClient(SNSClient);
const FROM = 'Handoff <no-reply@handoff.example.test>';
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret' };
/** Used through the Notifier port, as the use cases see it (each function is wired with the senders it may use). */
const notifier = (): Notifier => {
  const email = new SesEmailSender(FROM, new SESv2Client({ region: 'eu-west-2', credentials }));
  const sms = new SnsSmsSender(new SNSClient({ region: 'eu-west-2', credentials }));
  return { sendEmail: (message) => email.sendEmail(message), sendSms: (message) => sms.sendSms(message) };
};

beforeEach(() => {
  ses.reset();
  sns.reset();
});
afterAll(() => {
  ses.restore();
  sns.restore();
});

describe('SesEmailSender.sendEmail', () => {
  it('sends exactly one SESv2 SendEmailCommand with the sender, recipient, subject and text', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await notifier().sendEmail({
      id: '01hdelivery000000000000001',
      purpose: 'request_link',
      to: 'sam@customer.test',
      subject: 'Tess asks you to send a credential securely',
      text: 'Open this link to send it: https://app.example.test/r/tok#commit',
    });
    const calls = ses.commandCalls(SendEmailCommand);
    expect(ses.calls()).toHaveLength(1);
    expect(calls).toHaveLength(1);
    expect(calls[0].args[0].input).toEqual({
      FromEmailAddress: FROM,
      Destination: { ToAddresses: ['sam@customer.test'] },
      Content: {
        Simple: {
          Subject: { Data: 'Tess asks you to send a credential securely', Charset: 'UTF-8' },
          Body: { Text: { Data: 'Open this link to send it: https://app.example.test/r/tok#commit', Charset: 'UTF-8' } },
        },
      },
    });
    expect(sns.calls()).toHaveLength(0);
  });

  it('lets an SES failure reach the caller (so the use case can report it)', async () => {
    ses.on(SendEmailCommand).rejects(new Error('MessageRejected'));
    await expect(
      notifier().sendEmail({ id: 'x', purpose: 'request_link', to: 'a@b.test', subject: 's', text: 't' }),
    ).rejects.toThrow('MessageRejected');
  });
});

describe('SnsSmsSender.sendSms', () => {
  it('sends exactly one SNS PublishCommand to the number, transactional', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'sms-1' });
    await notifier().sendSms({
      id: '01hdelivery000000000000002',
      purpose: 'request_link',
      to: '+447911123456',
      text: 'Tess: send a credential securely at https://app.example.test/r/tok#commit',
    });
    const calls = sns.commandCalls(PublishCommand);
    expect(sns.calls()).toHaveLength(1);
    expect(calls).toHaveLength(1);
    expect(calls[0].args[0].input).toEqual({
      PhoneNumber: '+447911123456',
      Message: 'Tess: send a credential securely at https://app.example.test/r/tok#commit',
      MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
    });
    expect(calls[0].args[0].input.TopicArn).toBeUndefined();
    expect(ses.calls()).toHaveLength(0);
  });

  it('lets an SNS failure reach the caller', async () => {
    sns.on(PublishCommand).rejects(new Error('OptedOut'));
    await expect(notifier().sendSms({ id: 'x', purpose: 'request_link', to: '+447911123456', text: 't' })).rejects.toThrow('OptedOut');
  });
});
