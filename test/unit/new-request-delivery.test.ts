import { describe, expect, it } from 'vitest';
import { deliveryNote } from '../../web/app/pages/new-request.ts';

/**
 * The new request's page after creating: when the service was asked to send the link (email, SMS,
 * a reply in the ticket), it says what became of it, as the creation's `delivery` says
 * (docs/handoff.md), instead of asking the technician to send a link that already went out, or
 * hiding one that did not.
 */
describe('what the page says of the link the service sent', () => {
  it('says nothing when the technician sends the link', () => {
    expect(deliveryNote(null)).toBeNull();
    expect(deliveryNote(undefined)).toBeNull();
    expect(deliveryNote({ method: 'none' })).toBeNull();
  });

  it('says the link went out, by the channel it went by', () => {
    expect(deliveryNote({ method: 'email', status: 'sent' })).toEqual({
      text: 'The service emailed the link to the subject: you need not send it again. Give the subject the code another way (by phone or in person).',
      failed: false,
    });
    expect(deliveryNote({ method: 'sms', status: 'sent' })?.text).toMatch(/^The service texted the link to the subject:/);
    expect(deliveryNote({ method: 'ticket_reply', status: 'sent' })?.text).toMatch(/^The service posted the link in the ticket:/);
  });

  it('says a link that did not go out did not, with the reason, and to send it another way', () => {
    // The reason create-request.ts gives.
    const reason = 'The email could not be sent; send the link another way.';
    expect(deliveryNote({ method: 'email', status: 'failed', reason })).toEqual({ text: reason, failed: true });
    expect(deliveryNote({ method: 'ticket_reply', status: 'failed' })).toEqual({
      text: 'The service could not post the link in the ticket: send the link to the subject another way.',
      failed: true,
    });
  });

  it('says an unconfirmed sending may not have reached the subject', () => {
    expect(deliveryNote({ method: 'sms', status: 'unconfirmed', reason: 'Not confirmed yet.' })).toEqual({
      text: 'The service has not confirmed that it could text the link. If the subject does not get it, send the link another way.',
      failed: true,
    });
  });
});
