import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Notifier, OutboundMessage } from '#core/ports.ts';

/**
 * Stands in for SES and SNS locally: each message is a JSON file under the outbox folder, and a
 * one-line notice names the file (the message holds a link token, so its text is not echoed).
 */
export class OutboxNotifier implements Notifier {
  constructor(
    private readonly folder: string,
    private readonly announce: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  ) {}

  sendEmail(message: OutboundMessage & { to: string; subject: string; text: string }) {
    return this.write('email', message.id, { channel: 'email', ...message });
  }

  sendSms(message: OutboundMessage & { to: string; text: string }) {
    return this.write('sms', message.id, { channel: 'sms', ...message });
  }

  private async write(channel: string, id: string, content: object) {
    await mkdir(this.folder, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${channel}-${id}.json`;
    const file = join(this.folder, name);
    // Written beside the outbox, then renamed into it: whoever reads the outbox never sees half a message.
    const partial = `${this.folder}.partial`;
    await mkdir(partial, { recursive: true });
    await writeFile(join(partial, name), `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    await rename(join(partial, name), file);
    this.announce(`[outbox] ${channel} to ${(content as { to: string }).to} written to ${file}`);
  }
}
