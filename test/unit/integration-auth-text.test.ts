import { describe, expect, it } from 'vitest';
import { AUTH_TEXT } from '../../web/app/pages/integrations.ts';

/**
 * The integrations pages name the header each signing mode reads, as docs/tickets-and-helpdesks.md
 * and the 401 challenge name it: Jira and Zammad both sign under X-Hub-Signature, one with SHA-256,
 * the other with SHA-1.
 */
describe('the app names the header of each signature check', () => {
  it.each([
    ['hmac', 'X-Service-Signature'],
    ['hub-sha256', 'X-Hub-Signature, SHA-256'],
    ['hub-sha1', 'X-Hub-Signature, SHA-1'],
  ] as const)('%s: %s', (mode, header) => {
    expect(AUTH_TEXT[mode]).toBe(`Signature (${header})`);
  });
});
