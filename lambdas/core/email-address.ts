import { domainToASCII } from 'node:url';
import * as z from 'zod/mini';

/** The longest address SMTP carries (RFC 5321's path of 256 octets, less its angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * An email address as mail servers and SES take it: an internationalised domain (`anna@müller.de`)
 * is written in punycode (`anna@xn--mller-kva.de`), the form DNS and SES know, so a customer at
 * such a domain can be sent a link and a member there can sign in. The local part stays ASCII:
 * SES does not send to a non-ASCII mailbox name (SMTPUTF8), so one is refused here rather than
 * bounced later.
 */
export const emailAddress = () =>
  z.pipe(
    // What a caller sends, as the OpenAPI document shows it (its input side is this first stage):
    // an email address of at most 254 characters, the rules the second stage judges.
    z.string().check(z.overwrite(withAsciiDomain)).register(z.globalRegistry, { format: 'email', maxLength: MAX_EMAIL_LENGTH }),
    z.email({ pattern: ASCII_EMAIL, message: 'Must be an email address.' }).check(z.maxLength(MAX_EMAIL_LENGTH, `Must be at most ${MAX_EMAIL_LENGTH} characters.`)),
  );

/**
 * zod's practical pattern (letters, digits and `_'+-` in dotted local parts; a domain of labels),
 * with one change: the top-level label may be punycode (`xn--p1ai`, Russia's `.рф`), which zod's
 * letters-only last label refuses.
 */
const ASCII_EMAIL = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+(?:[A-Za-z]{2,}|[Xx][Nn]--[A-Za-z0-9\-]+)$/;

/** The address with its domain in punycode when the domain is not ASCII; as given otherwise (the pattern then judges it). */
const withAsciiDomain = (text: string) => {
  const at = text.lastIndexOf('@');
  const domain = text.slice(at + 1);
  if (at < 0 || /^[\x21-\x7e]*$/.test(domain)) return text;
  const ascii = domainToASCII(domain);
  return ascii ? `${text.slice(0, at)}@${ascii}` : text;
};

/**
 * An address as members' addresses are kept, to look one up rather than parse it (the operator
 * CLI, a ticket's requester): trimmed, its domain in punycode and lower case, so the Unicode and
 * punycode forms find the same member.
 */
export const addressForLookup = (text: string) => withAsciiDomain(text.trim()).toLowerCase();
