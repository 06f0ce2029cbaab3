import { z } from 'zod';
import { DELIVERY_METHODS, REQUEST_STATUSES, VERIFICATION_MODES } from './model.ts';
import { queryInteger, ulidString } from './validation.ts';

const email = () => z.email('Must be an email address.').max(254);

/** POST /requests body. Required-ness of justification and recipients is checked after presets apply. */
export const createRequestBody = z.strictObject({
  subject_name: z.string().trim().min(2, 'Must be 2 to 120 characters.').max(120, 'Must be 2 to 120 characters.'),
  subject_email: email().nullish(),
  subject_phone: z.string().max(40, 'Must be at most 40 characters.').nullish(),
  justification: z.string().trim().min(10, 'Must be 10 to 1000 characters.').max(1000, 'Must be 10 to 1000 characters.').optional(),
  recipients: z.array(email()).min(1, 'Must list 1 to 64 recipients.').max(64, 'Must list 1 to 64 recipients.').optional(),
  requester: email().nullish(),
  teams: z.array(ulidString()).max(64, 'At most 64 teams.').optional(),
  client_id: ulidString().nullish(),
  preset: z.string().min(1).max(40, 'Must be at most 40 characters.').nullish(),
  template_id: ulidString().nullish(),
  ticket_ref: z.string().min(1).max(120, 'Must be at most 120 characters.').nullish(),
  // http(s) only: the web application shows it as a link, and a javascript: URL would run there.
  ticket_url: z.url({ protocol: /^https?$/, message: 'Must be an http or https URL.' }).max(2048).nullish(),
  ticket_integration_id: ulidString().nullish(),
  ticket_external_id: z.string().min(1).max(64, 'Must be at most 64 characters.').nullish(),
  ttl_minutes: z.number().int('Must be an integer.').min(5, 'Must be 5 to 43200.').max(43200, 'Must be 5 to 43200.').optional(),
  verification_mode: z.enum(VERIFICATION_MODES).optional(),
  allow_attachments: z.boolean().optional(),
  delivery: z.strictObject({ method: z.enum(DELIVERY_METHODS) }).nullish(),
});
export type CreateRequestBody = z.infer<typeof createRequestBody>;

/** GET /requests query. */
export const listRequestsQuery = z.strictObject({
  status: z.enum(REQUEST_STATUSES).optional(),
  client_id: ulidString().optional(),
  ticket_ref: z.string().min(1).max(120, 'Must be at most 120 characters.').optional(),
  limit: queryInteger(1, 100).default(50),
  cursor: ulidString().optional(),
});

export const requestIdPath = z.object({ id: ulidString() });

/** POST /generate body (optional). */
export const generateBody = z
  .strictObject({
    type: z.enum(['password', 'passphrase']).default('password'),
    // Bounds apply to passwords only: SPEC.md says length is ignored for a passphrase.
    length: z.number().int('Must be an integer.').default(20),
    lower: z.boolean().default(true),
    upper: z.boolean().default(true),
    digits: z.boolean().default(true),
    symbols: z.boolean().default(false),
  })
  .superRefine((body, context) => {
    if (body.type === 'password' && (body.length < 8 || body.length > 128)) {
      context.addIssue({ code: 'custom', path: ['length'], message: 'Must be 8 to 128.' });
    }
    if (body.type === 'password' && !body.lower && !body.upper && !body.digits && !body.symbols) {
      for (const field of ['lower', 'upper', 'digits', 'symbols']) {
        context.addIssue({ code: 'custom', path: [field], message: 'At least one character class must be enabled.' });
      }
    }
  });
