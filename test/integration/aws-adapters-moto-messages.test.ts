/**
 * SesEmailSender and SnsSmsSender over HTTP against moto_server, through the real SDK clients:
 * email refused from an unverified sender and sent from a verified one, text messages published.
 * The unit tests (test/unit/adapters) check the parameters against a mock that accepts anything;
 * here a service-like server parses and validates them. moto's record of the emails and text
 * messages it "sent" is read from its `/moto-api/data.json`.
 */
import { CreateEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { SesEmailSender } from '../../lambdas/adapters/ses-email.ts';
import { SnsSmsSender } from '../../lambdas/adapters/sns-sms.ts';
import type { Notifier } from '../../lambdas/core/ports.ts';
import { motoAvailable, motoModels, useMotoServer } from '../support/moto-server.ts';

const haveMoto = motoAvailable();

describe.skipIf(!haveMoto)('the AWS adapters against moto_server', () => {
  const { moto, client } = useMotoServer();

  describe('SesEmailSender and SnsSmsSender', () => {
    let ses: SESv2Client;
    let sns: SNSClient;
    interface MotoEmail {
      id: string;
      source: string;
      subject: string;
      body: string;
      destinations: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
    }
    interface MotoSms {
      message_id: string;
      phone_number: string;
      message: string;
    }
    /** Used through the Notifier port, as the use cases see it. */
    const notifier = (from: string): Notifier => {
      const email = new SesEmailSender(from, ses);
      const sms = new SnsSmsSender(sns);
      return { sendEmail: (message) => email.sendEmail(message), sendSms: (message) => sms.sendSms(message) };
    };

    beforeAll(() => {
      ses = client(SESv2Client);
      sns = client(SNSClient);
    });

    it('email: SES refuses a sender that is not a verified identity, and the refusal reaches the caller; nothing is sent', async () => {
      const from = 'Credential Handoff <unverified@handoff.example.net>';
      const subject = 'Your sign-in link (unverified sender)';
      await expect(notifier(from).sendEmail({ id: 'dlv_1', purpose: 'sign_in', to: 'member@example.com', subject, text: 'Sign in at https://example.net/app' })).rejects.toMatchObject({
        name: 'MessageRejected',
        message: `Email address not verified ${from}`,
        $metadata: { httpStatusCode: 400 },
      });
      expect((await motoModels<MotoEmail>(moto.endpoint, 'ses', 'Message')).filter((m) => m.subject === subject)).toEqual([]);
    });

    it('email: once the sender is a verified identity, the message is sent with its From, To, subject and text intact (UTF-8)', async () => {
      const address = 'noreply@handoff.example.net';
      const from = `Credential Handoff <${address}>`;
      await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: address }));
      const subject = 'Credential request for ticket Ünïcode-42 – £5 ✓';
      const text = 'Acme Café asks you to send a credential securely.\nOpen: https://example.net/r/abc#k=xyz\n— 🔐';
      await notifier(from).sendEmail({ id: 'dlv_2', purpose: 'request_link', to: 'subject@example.com', subject, text });

      const sent = (await motoModels<MotoEmail>(moto.endpoint, 'ses', 'Message')).filter((m) => m.subject === subject);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ source: from, subject, body: text, destinations: { ToAddresses: ['subject@example.com'] } });
      expect(sent[0].destinations).not.toHaveProperty('CcAddresses');
      expect(sent[0].destinations).not.toHaveProperty('BccAddresses');
    });

    it('SMS: publishes straight to the E.164 number (no topic); SNS keeps the number and the text', async () => {
      const text = 'Acme: send a credential securely at https://example.net/r/abc#k=xyz';
      await notifier('noreply@handoff.example.net').sendSms({ id: 'dlv_3', purpose: 'request_link', to: '+447700900123', text });
      const sent = (await motoModels<MotoSms>(moto.endpoint, 'sns', 'SMS')).filter((m) => m.message === text);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ phone_number: '+447700900123', message: text });
      expect(sent[0].message_id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('SMS: a number that is not E.164 is refused by SNS, and the refusal reaches the caller', async () => {
      await expect(notifier('noreply@handoff.example.net').sendSms({ id: 'dlv_4', purpose: 'request_link', to: '07700 900123', text: 'not sent' })).rejects.toMatchObject({
        name: 'InvalidParameterException',
        message: 'Phone number does not meet the E164 format',
        $metadata: { httpStatusCode: 400 },
      });
      expect((await motoModels<MotoSms>(moto.endpoint, 'sns', 'SMS')).filter((m) => m.message === 'not sent')).toEqual([]);
    });
  });
});
