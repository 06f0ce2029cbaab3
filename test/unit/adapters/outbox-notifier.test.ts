import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxNotifier } from '../../../lambdas/local/outbox-notifier.ts';

const SECRET_TEXT = 'Open this link to send it: https://app.example.test/r/SECRET-LINK-TOKEN#commit';
let root: string;
let lines: string[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'outbox-unit-'));
  lines = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('OutboxNotifier', () => {
  it('writes one 0600 JSON file per email and announces its name without the text', async () => {
    const folder = join(root, 'nested', 'outbox'); // created on demand
    const notifier = new OutboxNotifier(folder, (line) => lines.push(line));
    await notifier.sendEmail({ id: '01hdelivery000000000000001', purpose: 'request_link', to: 'sam@customer.test', subject: 'Hand over', text: SECRET_TEXT });

    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-email-01hdelivery000000000000001\.json$/);
    const path = join(folder, files[0]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      channel: 'email',
      id: '01hdelivery000000000000001',
      purpose: 'request_link',
      to: 'sam@customer.test',
      subject: 'Hand over',
      text: SECRET_TEXT,
    });

    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(path);
    expect(lines[0]).not.toContain('SECRET-LINK-TOKEN');
    expect(lines[0]).not.toContain(SECRET_TEXT);
    expect(lines[0]).not.toContain('\n');
  });

  it('writes an SMS the same way', async () => {
    const notifier = new OutboxNotifier(root, (line) => lines.push(line));
    await notifier.sendSms({ id: '01hdelivery000000000000002', purpose: 'request_link', to: '+447911123456', text: SECRET_TEXT });
    const files = readdirSync(root);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-sms-01hdelivery000000000000002\.json$/);
    expect(statSync(join(root, files[0])).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(root, files[0]), 'utf8'))).toEqual({
      channel: 'sms',
      id: '01hdelivery000000000000002',
      purpose: 'request_link',
      to: '+447911123456',
      text: SECRET_TEXT,
    });
    expect(lines).toEqual([expect.stringContaining(join(root, files[0]))]);
    expect(lines[0]).not.toContain('SECRET-LINK-TOKEN');
  });

  it('keeps one file per message, even for messages in the same millisecond', async () => {
    const notifier = new OutboxNotifier(root, (line) => lines.push(line));
    await Promise.all([
      notifier.sendEmail({ id: 'a1', purpose: 'request_link', to: 'a@b.test', subject: 's', text: 't1' }),
      notifier.sendEmail({ id: 'a2', purpose: 'request_link', to: 'a@b.test', subject: 's', text: 't2' }),
      notifier.sendSms({ id: 'a3', purpose: 'request_link', to: '+447911123456', text: 't3' }),
    ]);
    expect(readdirSync(root)).toHaveLength(3);
    expect(lines).toHaveLength(3);
  });
});
