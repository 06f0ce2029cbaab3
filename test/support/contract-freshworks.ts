import type { FreshworksCall } from './fake-freshworks.ts';
import { at, basicCredentialsOf, collector, isPositiveInteger, isRecord, ownAnswer, parsedJson, sameList } from './helpdesk-contracts.ts';

/**
 * Neither Freshworks helpdesk publishes an OpenAPI document, so their contract here is their API
 * references' (developers.freshdesk.com/api, api.freshservice.com: Authentication, View a Ticket,
 * Reply to a Ticket), which agree on the calls: Basic authentication with the API key as the user
 * and `X` as the password, each call's path, the reply's documented fields, and the adapter's own
 * rule that a reply is its HTML `body` alone. The products differ in the reply's documented fields
 * and in whether answers wrap their record in a key. The check answers a list of problems, empty
 * when every call fits, for the adapter and end-to-end tests alike.
 */

export interface FreshworksContract {
  vendor: string;
  /** The fields Reply to a Ticket documents. */
  replyFields: readonly string[];
  /** The keys answers wrap their record in, or null when an answer is the record. */
  wrappedIn: { ticket: string; conversation: string } | null;
}

/** Every call in `calls` that the product's API reference does not describe, or that the fake answered as the product would not. */
export const freshworksContractProblems = (contract: FreshworksContract, calls: readonly FreshworksCall[]): string[] => {
  const { problems, check } = collector();
  const recordOf = (body: unknown, key: 'ticket' | 'conversation') => (contract.wrappedIn === null ? body : isRecord(body) ? body[contract.wrappedIn[key]] : undefined);
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
      check(reply !== null && Object.keys(reply).every((key) => contract.replyFields.includes(key)), `${where}: the body has a field the reference does not document`);
      check(reply !== null && sameList(Object.keys(reply), ['body']) && typeof reply.body === 'string' && reply.body !== '', `${where}: the body is not the reply's HTML body alone`);
    }
    if (!ownAnswer(call)) continue;
    const { status, body } = call.answer;
    if (status >= 300) {
      check(isRecord(body) && (typeof body.message === 'string' || typeof body.description === 'string'), `answer to ${where}: ${status} without ${contract.vendor}'s error body`);
    } else if (call.endpoint === 'view') {
      const ticket = recordOf(body, 'ticket');
      check(status === 200 && isRecord(ticket) && isPositiveInteger(ticket.id) && Number.isSafeInteger(ticket.status), `answer to ${where}: not a ticket with its id and status`);
    } else {
      const conversation = recordOf(body, 'conversation');
      check(
        status === 201 && isRecord(conversation) && isPositiveInteger(conversation.id) && isPositiveInteger(conversation.ticket_id) && typeof conversation.body === 'string',
        `answer to ${where}: not the created conversation`,
      );
    }
  }
  return problems;
};
