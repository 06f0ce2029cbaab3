import type { FreshdeskCall } from './fake-freshdesk.ts';
import { at, basicCredentialsOf, collector, isPositiveInteger, isRecord, ownAnswer, parsedJson, sameList } from './helpdesk-contracts.ts';

/**
 * Freshdesk publishes no OpenAPI document, so its contract here is its API reference's
 * (developers.freshdesk.com/api: Authentication, View a Ticket, Reply to a Ticket): Basic
 * authentication with the API key as the user and `X` as the password, each call's path, the reply's
 * documented fields, and the adapter's own rule that a reply is its HTML `body` alone. The check
 * answers a list of problems, empty when every call fits, for the adapter and end-to-end tests alike.
 */

/** The fields Reply to a Ticket documents. */
const REPLY_FIELDS = ['body', 'from_email', 'user_id', 'cc_emails', 'bcc_emails', 'attachments'];

/** Every call in `calls` that Freshdesk's API reference does not describe, or that the fake answered as Freshdesk would not. */
export const freshdeskContractProblems = (calls: readonly FreshdeskCall[]): string[] => {
  const { problems, check } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no documented call is this request`);
      continue;
    }
    check(basicCredentialsOf(call.headers.authorization)?.password === 'X', `${where}: Authorization is not Basic <API key>:X`);
    if (call.endpoint === 'view') {
      check(call.method === 'GET' && /^\/api\/v2\/tickets\/[1-9][0-9]*$/.test(call.path) && call.text === '', `${where}: not GET /api/v2/tickets/{id} with a ticket id and no body`);
    } else {
      check(call.method === 'POST' && /^\/api\/v2\/tickets\/[1-9][0-9]*\/reply$/.test(call.path), `${where}: not POST /api/v2/tickets/{id}/reply`);
      check(call.headers['content-type'] === 'application/json', `${where}: Content-Type is ${call.headers['content-type']}, not application/json`);
      const body = parsedJson(call.text);
      const reply = body.ok && isRecord(body.value) ? body.value : null;
      check(reply !== null && Object.keys(reply).every((key) => REPLY_FIELDS.includes(key)), `${where}: the body has a field the reference does not document`);
      check(reply !== null && sameList(Object.keys(reply), ['body']) && typeof reply.body === 'string' && reply.body !== '', `${where}: the body is not the reply's HTML body alone`);
    }
    if (!ownAnswer(call)) continue;
    const { status, body } = call.answer;
    if (status >= 300) {
      check(isRecord(body) && (typeof body.message === 'string' || typeof body.description === 'string'), `answer to ${where}: ${status} without Freshdesk's error body`);
    } else if (call.endpoint === 'view') {
      check(status === 200 && isRecord(body) && isPositiveInteger(body.id) && Number.isSafeInteger(body.status), `answer to ${where}: not a ticket with its id and status`);
    } else {
      check(status === 201 && isRecord(body) && isPositiveInteger(body.id) && isPositiveInteger(body.ticket_id) && typeof body.body === 'string', `answer to ${where}: not the created conversation`);
    }
  }
  return problems;
};
