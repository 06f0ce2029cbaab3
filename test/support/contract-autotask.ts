import type { AutotaskCall } from './fake-autotask.ts';
import { at, collector, isPositiveInteger, isRecord, ownAnswer, parsedJson, sameList } from './helpdesk-contracts.ts';

/**
 * Autotask serves its OpenAPI (Swagger) document per zone and it is not copied here, so its contract
 * is what Autotask's developer help and its REST Postman collection describe: the three headers that
 * authenticate every call (ApiIntegrationCode, UserName, Secret; no Authorization), each call's path
 * under /atservicesrest/v1.0, the TicketNotes entity's fields (TicketNoteModel), the answers' envelopes
 * (`item`, `fields`, `itemId`, `errors`), and the adapter's own rule that a reply is one note,
 * published as the instance's picklist says customers see, and nothing else. The check answers a list
 * of problems, empty when every call fits, for the adapter and end-to-end tests alike.
 */

/** The TicketNotes entity's fields. */
const NOTE_FIELDS = [
  'id',
  'createDateTime',
  'createdByContactID',
  'creatorResourceID',
  'description',
  'impersonatorCreatorResourceID',
  'impersonatorUpdaterResourceID',
  'lastActivityDate',
  'noteType',
  'publish',
  'ticketID',
  'title',
  'userDefinedFields',
];
/** What the adapter sends of them, in this order. */
const REPLY_FIELDS = ['ticketID', 'title', 'description', 'noteType', 'publish'];

const API = '/atservicesrest/v1.0';
const ticketIdIn = (path: string, suffix: string) => new RegExp(`^${API.replaceAll('.', '\\.')}/Tickets/([1-9][0-9]*)${suffix}$`).exec(path)?.[1];

/**
 * Every call in `calls` that Autotask's REST API does not describe, or that the fake answered as
 * Autotask would not. `publish` is the value the instance's picklist gives All Autotask Users.
 */
export const autotaskContractProblems = (calls: readonly AutotaskCall[], expected: { publish: number }): string[] => {
  const { problems, check } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no call the adapter makes is this request`);
      continue;
    }
    const [path = '', search = ''] = call.path.split('?', 2);
    check(['apiintegrationcode', 'username', 'secret'].every((name) => (call.headers[name] ?? '') !== ''), `${where}: ApiIntegrationCode, UserName and Secret are not all sent`);
    check(call.headers.authorization === undefined, `${where}: an Authorization header is sent beside the API user's headers`);
    check(call.headers.accept === 'application/json', `${where}: Accept is not application/json`);
    check(search === '', `${where}: a query is sent`);
    if (call.endpoint === 'notes') {
      const id = ticketIdIn(path, '/Notes');
      check(call.method === 'POST' && id !== undefined, `${where}: not POST /Tickets/{parentId}/Notes`);
      check(call.headers['content-type'] === 'application/json', `${where}: Content-Type is ${call.headers['content-type']}, not application/json`);
      const body = parsedJson(call.text);
      const note = body.ok && isRecord(body.value) ? body.value : null;
      check(note !== null && Object.keys(note).every((key) => NOTE_FIELDS.includes(key)), `${where}: the body has a field the TicketNotes entity does not have`);
      check(
        note !== null &&
          sameList(Object.keys(note), REPLY_FIELDS) &&
          note.ticketID === Number(id) &&
          typeof note.title === 'string' &&
          typeof note.description === 'string' &&
          note.description !== '' &&
          isPositiveInteger(note.noteType) &&
          note.publish === expected.publish,
        `${where}: the body is not one note of its ticket, published to All Autotask Users, and nothing else`,
      );
    } else {
      check(call.method === 'GET' && call.text === '', `${where}: a read is not a GET without a body`);
      const described = call.endpoint === 'ticket' ? ticketIdIn(path, '') !== undefined : path === `${API}/TicketNotes/entityInformation/fields`;
      check(described, `${where}: not ${call.endpoint === 'ticket' ? 'GET /Tickets/{id}' : 'GET /TicketNotes/entityInformation/fields'}`);
    }
    if (!ownAnswer(call)) continue;
    const { status, body } = call.answer;
    if (status >= 300) {
      check(isRecord(body) && Array.isArray(body.errors) && body.errors.every((message) => typeof message === 'string'), `answer to ${where}: ${status} without Autotask's errors list`);
      continue;
    }
    const answerShape = {
      ticket: () => isRecord(body) && (body.item === null || (isRecord(body.item) && isPositiveInteger(body.item.id) && isPositiveInteger(body.item.status))),
      fields: () => isRecord(body) && Array.isArray(body.fields) && body.fields.every((field) => isRecord(field) && typeof field.name === 'string' && typeof field.isPickList === 'boolean'),
      notes: () => isRecord(body) && isPositiveInteger(body.itemId) && sameList(Object.keys(body), ['itemId']),
    }[call.endpoint];
    check(status === 200 && answerShape(), `answer to ${where}: not the documented answer`);
  }
  return problems;
};
