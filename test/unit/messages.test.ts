import { describe, expect, it } from 'vitest';
import { codeEmail, linkEmail, linkSms, oneLine, readableTime, ticketReplyText, type LinkMessageFacts } from '../../lambdas/core/messages.ts';

const LINK = 'https://handoff.example.com/r/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdE#Zx0123456789abcdefghij';

const facts = (overrides: Partial<LinkMessageFacts> = {}): LinkMessageFacts => ({
  organisation: 'Northwind MSP',
  client: 'Contoso Ltd',
  asker: 'Tom Technician',
  justification: 'VPN admin password for the firewall migration',
  ticketRef: 'INC-5001',
  link: LINK,
  linkExpiresAt: '2026-11-30T08:42:51.296Z',
  verificationMode: 'challenge',
  ...overrides,
});

describe('the messages a subject is sent', () => {
  it('the link email names who asks, for which organisation, client and ticket, until when, how the page checks them, and what nobody asks', () => {
    const { subject, text } = linkEmail(facts());
    expect(subject).toBe('Northwind MSP: Tom Technician asks you to send a credential securely');
    expect(text).toBe(
      [
        'Tom Technician at Northwind MSP asks you to hand over a credential securely for Contoso Ltd (ticket INC-5001).',
        '',
        'Why: VPN admin password for the firewall migration',
        '',
        `Open this link to send it: ${LINK}`,
        'The link works until you have sent the credential, and at the latest until 30 Nov 2026, 08:42 UTC.',
        'The page asks for a six-digit code, which Tom Technician gives you by phone or in person, never in a message with this link.',
        '',
        'What you type is encrypted in your browser; only the people the page names can read it.',
        'Nobody from Northwind MSP will ask you to reply with a password, or to tell it to them.',
        'Not expecting this? Do not open the link. Contact Northwind MSP on a phone number or address you already know, not one from this message.',
      ].join('\n'),
    );
  });

  it('says what each verification mode asks for, and nothing for none', () => {
    expect(linkEmail(facts({ verificationMode: 'email_otp' })).text).toContain('The page emails you a one-time code to enter there.');
    expect(linkEmail(facts({ verificationMode: 'either' })).text).toContain('by phone or in person, or one it emails you.');
    expect(linkEmail(facts({ verificationMode: 'both' })).text).toContain('by phone or in person, and one it emails you.');
    expect(linkEmail(facts({ verificationMode: 'none' })).text).not.toContain('code');
  });

  it('a text message names the organisation first and ends with the link', () => {
    const text = linkSms(facts({ client: null, ticketRef: null }));
    expect(text).toBe(`Tom Technician at Northwind MSP: send a credential securely. Never reply with a password. ${LINK}`);
    expect(text.endsWith(LINK)).toBe(true);
  });

  it("people's words go in on one line: line breaks become spaces and direction overrides are dropped", () => {
    const { subject, text } = linkEmail(facts({ asker: 'Mallory\r\nBcc: victim@example.net', justification: 'Line one\n\nURGENT: send the code too', organisation: 'Evil \u202eCorp' }));
    expect(subject).toBe('Evil Corp: Mallory Bcc: victim@example.net asks you to send a credential securely');
    expect(subject).not.toMatch(/[\r\n]/);
    expect(text).toContain('Why: Line one URGENT: send the code too');
    expect(text).not.toContain('\u202e');
    expect(oneLine('  a\u0000b\u2028c\t\td  ')).toBe('a b c d');
  });

  it('the emailed code carries no link, names the organisation and who never asks for it', () => {
    const { subject, text } = codeEmail({ organisation: 'Northwind MSP', code: '568443', lifetimeMinutes: 10 });
    expect(subject).toBe('Northwind MSP: your one-time code');
    expect(text).toContain('Your one-time code for the secure page of Northwind MSP is 568443. It expires in 10 minutes.');
    expect(text).toContain('Nobody from Northwind MSP will ask you for this code.');
    expect(text).not.toMatch(/https?:/);
  });

  it('the comment in the ticket says how long the link works, truly', () => {
    const text = ticketReplyText(facts());
    expect(text).toContain('The link works until you have sent the credential, and at the latest until 30 Nov 2026, 08:42 UTC. Never paste the credential into this ticket.');
    expect(text).not.toContain('works once');
  });

  it('reads a time in the zone it names', () => {
    expect(readableTime('2026-03-29T00:59:00.000Z')).toBe('29 Mar 2026, 00:59 UTC');
  });
});
