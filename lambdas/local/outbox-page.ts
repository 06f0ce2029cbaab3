import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiResult } from '../http/types.ts';
import { SECURITY_HEADERS } from '../http/static/serve.ts';

/** The address of the local mailbox page; no deployed route has it. */
export const OUTBOX_PAGE_PATH = '/local/outbox';
/** The newest messages shown; older ones stay in the folder. */
const SHOWN = 50;

interface OutboxMessage {
  channel: string;
  to: string;
  subject?: string;
  text: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The message's text with its web addresses as links (only http and https, escaped). */
const withLinks = (text: string) =>
  escapeHtml(text).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`);

/** When the message was written, from its file name (`2030-05-01T12-00-00-000Z-email-<id>.json`). */
const writtenAt = (file: string) => file.slice(0, 24).replace(/^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/, '$1:$2:$3.$4Z');

/**
 * The local runtime's mailbox (like MailHog): the email and SMS the service wrote to the outbox
 * folder, newest first, with their links clickable, so a sign-in link or a subject's link is one
 * click away in the browser. Served by `npm start` only while it listens on loopback (the page shows
 * sign-in links, which must not reach anyone else); never deployed.
 */
export const outboxPage = async (folder: string): Promise<ApiResult> => {
  const files = (await readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).sort().reverse().slice(0, SHOWN);
  const items: string[] = [];
  for (const file of files) {
    const message = JSON.parse(await readFile(join(folder, file), 'utf8')) as OutboxMessage;
    const at = writtenAt(file);
    items.push(
      `<li><article aria-labelledby="m-${items.length}"><h2 id="m-${items.length}">${escapeHtml(message.subject ?? `${message.channel.toUpperCase()} message`)}</h2>` +
        `<p><time datetime="${escapeHtml(at)}">${escapeHtml(at.replace('T', ' ').slice(0, 19))} UTC</time>, ${escapeHtml(message.channel)} to ${escapeHtml(message.to)}</p>` +
        `<pre>${withLinks(message.text)}</pre></article></li>`,
    );
  }
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Local outbox</title><link rel="stylesheet" href="/assets/styles.css"></head><body><main>' +
    '<h1>Local outbox</h1><p>The email and SMS this local service sent, newest first (the files are in the outbox folder). Deployed, they go through SES and SNS instead.</p>' +
    (items.length ? `<ol id="outbox" class="outbox">${items.join('')}</ol>` : '<p id="outbox-empty">Nothing sent yet.</p>') +
    '</main></body></html>';
  return { statusCode: 200, headers: { 'Content-Type': 'text/html; charset=utf-8', ...SECURITY_HEADERS }, body };
};
