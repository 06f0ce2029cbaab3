import * as z from 'zod/mini';
import { DELIVERY_METHODS, REQUEST_STATUSES, VERIFICATION_MODES } from './model.ts';
import { emailAddress } from './email-address.ts';
import { BROKEN_ESCAPE_MESSAGE, uriOfText } from './uri.ts';
import { queryInteger, ulidString } from './validation.ts';

/**
 * A ticket reference a record quotes: trimmed, as an inbound post's ticket id is
 * (inbound/mapping.ts), so a helpdesk's status for the ticket finds it; blank is refused.
 */
export const quotedTicketRef = () => z.string().check(z.trim(), z.minLength(1, 'Must be 1 to 120 characters.'), z.maxLength(120, 'Must be at most 120 characters.'));

/** POST /requests body. Required-ness of justification and recipients is checked after presets apply. */
export const createRequestBody = z.strictObject({
  subject_name: z.string().check(z.trim(), z.minLength(2, 'Must be 2 to 120 characters.'), z.maxLength(120, 'Must be 2 to 120 characters.')),
  subject_email: z.nullish(emailAddress()),
  subject_phone: z.nullish(z.string().check(z.maxLength(40, 'Must be at most 40 characters.'))),
  justification: z.optional(z.string().check(z.trim(), z.minLength(10, 'Must be 10 to 1000 characters.'), z.maxLength(1000, 'Must be 10 to 1000 characters.'))),
  recipients: z.optional(z.array(emailAddress()).check(z.minLength(1, 'Must list 1 to 64 recipients.'), z.maxLength(64, 'Must list 1 to 64 recipients.'))),
  requester: z.nullish(emailAddress()),
  teams: z.optional(z.array(ulidString()).check(z.maxLength(64, 'At most 64 teams.'))),
  client_id: z.nullish(ulidString()),
  preset: z.nullish(z.string().check(z.minLength(1), z.maxLength(40, 'Must be at most 40 characters.'))),
  template_id: z.nullish(ulidString()),
  ticket_ref: z.nullish(quotedTicketRef()),
  // http(s) only: the web application shows it as a link, and a javascript: URL would run there.
  // Kept as a URL by RFC 3986 too (uri.ts), as the answers' `format: uri` says.
  ticket_url: z.nullish(
    z.url({ protocol: /^https?$/, message: 'Must be an http or https URL.' }).check(
      z.maxLength(2048, 'Must be at most 2048 characters.'),
      z.refine((value) => uriOfText(value) !== null, BROKEN_ESCAPE_MESSAGE),
      z.overwrite((value) => uriOfText(value) ?? value),
    ),
  ),
  ticket_integration_id: z.nullish(ulidString()),
  ticket_external_id: z.nullish(z.string().check(z.trim(), z.minLength(1, 'Must be 1 to 64 characters.'), z.maxLength(64, 'Must be at most 64 characters.'))),
  ttl_minutes: z.optional(z.number().check(z.int('Must be an integer.'), z.gte(5, 'Must be 5 to 43200.'), z.lte(43200, 'Must be 5 to 43200.'))),
  verification_mode: z.optional(z.enum(VERIFICATION_MODES)),
  allow_attachments: z.optional(z.boolean()),
  delivery: z.nullish(z.strictObject({ method: z.enum(DELIVERY_METHODS) })),
});
export type CreateRequestBody = z.infer<typeof createRequestBody>;

/** GET /requests query. */
export const listRequestsQuery = z.strictObject({
  status: z.optional(z.enum(REQUEST_STATUSES)),
  client_id: z.optional(ulidString()),
  // Trimmed as a request's ticket_ref is kept, so the reference as entered finds it.
  ticket_ref: z.optional(quotedTicketRef()),
  limit: z._default(queryInteger(1, 100), 50),
  cursor: z.optional(ulidString()),
});

export const requestIdPath = z.object({ id: ulidString() });

/** POST /generate body (optional). */
export const generateBody = z
  .strictObject({
    type: z._default(z.enum(['password', 'passphrase']), 'password'),
    // Bounded whatever the type, so the OpenAPI document carries the bounds as the field's
    // minimum and maximum and a generated client can check them; a passphrase ignores the value.
    length: z._default(z.number().check(z.int('Must be an integer.'), z.gte(8, 'Must be 8 to 128.'), z.lte(128, 'Must be 8 to 128.')), 20),
    lower: z._default(z.boolean(), true),
    upper: z._default(z.boolean(), true),
    digits: z._default(z.boolean(), true),
    symbols: z._default(z.boolean(), false),
  })
  .check(
    z.superRefine((body, context) => {
      if (body.type === 'password' && !body.lower && !body.upper && !body.digits && !body.symbols) {
        for (const field of ['lower', 'upper', 'digits', 'symbols']) {
          context.addIssue({ code: 'custom', path: [field], message: 'At least one character class must be enabled.' });
        }
      }
    }),
  );
