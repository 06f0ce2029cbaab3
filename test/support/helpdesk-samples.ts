import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A vendor sample from test/fixtures/helpdesk-apis, without the `_source` note each carries (where
 * it was copied from), which is no field of the vendor's body.
 */
export const helpdeskSample = (name: string) => {
  const { _source: _, ...body } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'helpdesk-apis', name), 'utf8'));
  return body as Record<string, any>;
};

/** A ticket_reply's text as the adapter tests post it: lines, and a link whose fragment holds `&`. */
export const REPLY_TEXT =
  'Jane Smith asks you to hand over a credential securely, through a one-time link.\n\n' +
  'Open this link to send it: https://handoff.example/r/01HREQ#k=abc&v=1\nNever paste the credential into this ticket.';
