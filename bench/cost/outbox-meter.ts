/**
 * Emails and text messages: locally each is a file in the outbox folder (OutboxNotifier), named
 * `<time>-<channel>-<id>.json`; deployed each email is one SES send, each text one SNS publish.
 */
import { existsSync, readdirSync } from 'node:fs';

export const outboxCounts = (outboxDir: string) => {
  const names = existsSync(outboxDir) ? readdirSync(outboxDir) : [];
  return {
    emails: names.filter((name) => /-email-.+\.json$/.test(name)).length,
    texts: names.filter((name) => /-sms-.+\.json$/.test(name)).length,
  };
};
