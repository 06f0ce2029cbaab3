/**
 * What the service writes to people: to a subject, the link by email or text, the emailed
 * one-time code and the comment in their ticket; and the one-line text and readable times that
 * every message (members' sign-in links, technicians' notices) puts people's words and times in.
 *
 * A subject gets an unexpected message asking for a password, from the service's one sending
 * address, so each names the organisation asking (and its client, and the ticket when there is
 * one), says how the secure page will check them, and says what the organisation never asks: a
 * password by reply, or the code by anyone. The challenge code is never in a message with the
 * link (SPEC.md); the page asks for it, and the technician gives it apart.
 *
 * Names, references and reasons come from people (a ticket's requester name among them), so each
 * goes in on one line: line breaks and other control characters become spaces (they would start a
 * new header in an email's Subject, or write a paragraph of their own that seems to come from the
 * service), and direction overrides are dropped (they would reorder the text around them).
 */
import type { VerificationMode } from './model.ts';

const CONTROLS = /[\p{Cc}\u2028\u2029]+/gu;
const DIRECTION_OVERRIDES = /[\u202a-\u202e\u2066-\u2069]/gu;

/** People's text for one line of a message. */
export const oneLine = (text: string) => text.replace(DIRECTION_OVERRIDES, '').replace(CONTROLS, ' ').replace(/ {2,}/g, ' ').trim();

/** "30 Nov 2026, 08:42 UTC": a time anyone reads, in the zone it is stated in. */
export const readableTime = (iso: string) => {
  const date = new Date(iso);
  return `${date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })} UTC`;
};

export interface LinkMessageFacts {
  organisation: string;
  /** The client the request is for, when it is not the organisation's own. */
  client: string | null;
  /** Who asks: the requester's name. */
  asker: string | null;
  justification: string | null;
  ticketRef: string | null;
  link: string;
  linkExpiresAt: string | null;
  verificationMode: VerificationMode;
}

const whoAsks = (facts: LinkMessageFacts) => {
  const organisation = oneLine(facts.organisation);
  const asker = facts.asker ? oneLine(facts.asker) : null;
  return asker ? `${asker} at ${organisation}` : organisation;
};

const forWhat = (facts: LinkMessageFacts) =>
  [facts.client ? ` for ${oneLine(facts.client)}` : '', facts.ticketRef ? ` (ticket ${oneLine(facts.ticketRef)})` : ''].join('');

/** How the page will check the subject, so neither a phone call nor an emailed code is a surprise. */
const checksText = (facts: LinkMessageFacts) => {
  const asker = facts.asker ? oneLine(facts.asker) : 'the person who asked';
  switch (facts.verificationMode) {
    case 'challenge':
      return `The page asks for a six-digit code, which ${asker} gives you by phone or in person, never in a message with this link.`;
    case 'email_otp':
      return 'The page emails you a one-time code to enter there.';
    case 'either':
      return `The page asks for a six-digit code, which ${asker} gives you by phone or in person, or one it emails you.`;
    case 'both':
      return `The page asks for a six-digit code, which ${asker} gives you by phone or in person, and one it emails you.`;
    default:
      return null;
  }
};

const never = (organisation: string) =>
  `Nobody from ${oneLine(organisation)} will ask you to reply with a password, or to tell it to them.`;

const notExpecting = (organisation: string) =>
  `Not expecting this? Do not open the link. Contact ${oneLine(organisation)} on a phone number or address you already know, not one from this message.`;

const whyLines = (facts: Pick<LinkMessageFacts, 'justification'>) => (facts.justification ? [`Why: ${oneLine(facts.justification)}`, ''] : []);

const expiryText = (facts: Pick<LinkMessageFacts, 'linkExpiresAt'>) =>
  facts.linkExpiresAt
    ? `The link works until you have sent the credential, and at the latest until ${readableTime(facts.linkExpiresAt)}.`
    : 'The link works until you have sent the credential.';

/** The subject's link by email. */
export const linkEmail = (facts: LinkMessageFacts) => ({
  subject: `${oneLine(facts.organisation)}: ${facts.asker ? oneLine(facts.asker) : 'your IT team'} asks you to send a credential securely`,
  text: [
    `${whoAsks(facts)} asks you to hand over a credential securely${forWhat(facts)}.`,
    '',
    ...whyLines(facts),
    `Open this link to send it: ${facts.link}`,
    expiryText(facts),
    ...[checksText(facts)].filter((line): line is string => line !== null),
    '',
    'What you type is encrypted in your browser; only the people the page names can read it.',
    never(facts.organisation),
    notExpecting(facts.organisation),
  ].join('\n'),
});

/** The subject's link by text message: short, the organisation first, the link last (nothing after it for a phone to take into it). */
export const linkSms = (facts: LinkMessageFacts) => `${whoAsks(facts)}: send a credential securely. Never reply with a password. ${facts.link}`;

/** The comment in the subject's own ticket (the helpdesk already says which organisation answers). */
export const ticketReplyText = (facts: Pick<LinkMessageFacts, 'asker' | 'justification' | 'link' | 'linkExpiresAt'>) =>
  [
    `${facts.asker ? oneLine(facts.asker) : 'Your IT team'} asks you to hand over a credential securely, through a one-time link.`,
    '',
    ...whyLines(facts),
    `Open this link to send it: ${facts.link}`,
    `${expiryText(facts)} Never paste the credential into this ticket.`,
  ].join('\n');

/** The emailed one-time code: no link, and who never asks for it. */
export const codeEmail = (input: { organisation: string; code: string; lifetimeMinutes: number }) => ({
  subject: `${oneLine(input.organisation)}: your one-time code`,
  text: [
    `Your one-time code for the secure page of ${oneLine(input.organisation)} is ${input.code}. It expires in ${input.lifetimeMinutes} minutes.`,
    '',
    `Enter it only on the page you opened from the link you were sent. Nobody from ${oneLine(input.organisation)} will ask you for this code.`,
    'If you did not ask for it, ignore this email.',
  ].join('\n'),
});
