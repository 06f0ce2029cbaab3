/**
 * POST /requests over real HTTP, the delivery of the link: emailed or texted (to the E.164
 * number) through the outbox, never with the challenge code, and nothing sent for delivery none.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base, created, service, useCreationService } from '../support/requests-create.ts';

useCreationService();

const outboxFiles = () => readdirSync(service.outboxDir).filter((name) => name.endsWith('.json'));

describe('POST /requests: delivery', () => {
  const readOutbox = (deliveryId: string) => {
    const file = outboxFiles().find((name) => name.includes(deliveryId));
    expect(file, `an outbox file for delivery ${deliveryId}`).toBeDefined();
    const text = readFileSync(join(service.outboxDir, file!), 'utf8');
    return { text, message: JSON.parse(text) as Record<string, any> };
  };

  it('emails the link (not the challenge code) for delivery email', async () => {
    const result = await created(base({ subject_email: 'jane@example.com', delivery: { method: 'email' } }));
    expect(result.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'email', status: 'sent' });
    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);
    const { text, message } = readOutbox(result.delivery!.id);
    expect(message.channel).toBe('email');
    expect(message.to).toBe('jane@example.com');
    expect(message.id).toBe(result.delivery!.id);
    expect(message.text).toContain(result.link);
    // Nothing but the link, the delivery id and the address may hold a digit run like the code.
    const rest = text.split(result.link!).join('').split(result.delivery!.id).join('');
    expect(rest).not.toContain(result.challenge_code);
  });

  it('emails an address at an internationalised domain at the domain\'s punycode form', async () => {
    const result = await created(base({ subject_email: 'jana@müller.de', delivery: { method: 'email' } }));
    expect(result.delivery).toMatchObject({ method: 'email', status: 'sent' });
    expect(readOutbox(result.delivery!.id).message.to).toBe('jana@xn--mller-kva.de');
  });

  it('texts the link (not the challenge code) for delivery sms, to the E.164 number', async () => {
    const result = await created(base({ subject_phone: '07400 123456', delivery: { method: 'sms' } }));
    expect(result.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'sms', status: 'sent' });
    const { text, message } = readOutbox(result.delivery!.id);
    expect(message.channel).toBe('sms');
    expect(message.to).toBe('+447400123456');
    expect(message.text).toContain(result.link);
    const rest = text.split(result.link!).join('').split(result.delivery!.id).join('').split('+447400123456').join('');
    expect(rest).not.toContain(result.challenge_code);
  });

  it('sends nothing for delivery none', async () => {
    const before = outboxFiles().length;
    const result = await created(base({ subject_email: 'jane@example.com', subject_phone: '07400 123456', delivery: { method: 'none' } }));
    expect(result.delivery).toBeNull();
    expect(outboxFiles().length).toBe(before);
  });
});
