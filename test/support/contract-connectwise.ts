import type { ConnectWiseCall } from './fake-connectwise.ts';
import { at, basicCredentialsOf, collector, isPositiveInteger, isRecord, ownAnswer, parsedJson, sameList } from './helpdesk-contracts.ts';

/**
 * ConnectWise's OpenAPI document ("ConnectWise Manage Public Endpoints", served to its developer
 * network's members) is not copied here: the two operations the adapter calls are checked against
 * what it declares of them, as its 2026.4 release names them (getServiceTicketsById's query
 * parameters and `clientId` header, the Ticket fields read, the ServiceNote schema's properties),
 * with the auth its documentation describes (HTTP Basic as `{companyId}+{publicKey}:{privateKey}`),
 * and the adapter's own rule that a reply is one Discussion note and nothing else. The check answers
 * a list of problems, empty when every call fits, for the adapter and end-to-end tests alike.
 */

/** getServiceTicketsById's query parameters. */
const READ_PARAMETERS = ['conditions', 'childConditions', 'customFieldConditions', 'orderBy', 'fields', 'page', 'pageSize', 'pageId'];
/** The ServiceNote schema's properties. */
const NOTE_FIELDS = [
  'id',
  'ticketId',
  'text',
  'detailDescriptionFlag',
  'internalAnalysisFlag',
  'resolutionFlag',
  'issueFlag',
  'member',
  'contact',
  'customerUpdatedFlag',
  'processNotifications',
  'dateCreated',
  'createdBy',
  'internalFlag',
  'externalFlag',
  'sentimentScore',
  '_info',
];
/** What the adapter sends of them, in this order. */
const REPLY_FIELDS = ['text', 'detailDescriptionFlag', 'internalAnalysisFlag', 'resolutionFlag'];

const API = '/v4_6_release/apis/3.0';
const INT32_MAX = 2_147_483_647;
const isInt32Id = (text: string | undefined) => text !== undefined && /^[1-9][0-9]{0,9}$/.test(text) && Number(text) <= INT32_MAX;

/**
 * Every call in `calls` that ConnectWise's API does not describe, or that the fake answered as
 * ConnectWise would not. `clientId` is the integration's, which every call must carry.
 */
export const connectWiseContractProblems = (calls: readonly ConnectWiseCall[], expected: { clientId: string }): string[] => {
  const { problems, check } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no operation the adapter calls is this request`);
      continue;
    }
    const [path = '', search = ''] = call.path.split('?', 2);
    const query = new URLSearchParams(search);
    const login = basicCredentialsOf(call.headers.authorization);
    check(login !== null && /^[^+\s]+\+[^+\s]+$/.test(login.user) && login.password !== '', `${where}: Authorization is not Basic {companyId}+{publicKey}:{privateKey}`);
    check(call.headers.clientid === expected.clientId, `${where}: the clientId header is not the integration's client id`);
    check(call.headers.accept === 'application/json', `${where}: Accept is not application/json`);
    if (call.endpoint === 'ticket') {
      const id = new RegExp(`^${API.replaceAll('.', '\\.')}/service/tickets/([^/]+)$`).exec(path)?.[1];
      check(call.method === 'GET' && isInt32Id(id) && call.text === '', `${where}: not GET /service/tickets/{id} with an int32 id and no body`);
      const undocumented = [...query.keys()].filter((name) => !READ_PARAMETERS.includes(name));
      check(undocumented.length === 0, `${where}: ${undocumented.join(', ')} is not a parameter of getServiceTicketsById`);
      check(query.get('fields') === 'id,closedFlag,status', `${where}: the read does not ask for id, closedFlag and status alone`);
    } else {
      const id = new RegExp(`^${API.replaceAll('.', '\\.')}/service/tickets/([^/]+)/notes$`).exec(path)?.[1];
      check(call.method === 'POST' && isInt32Id(id) && search === '', `${where}: not POST /service/tickets/{parentId}/notes with an int32 id`);
      check(call.headers['content-type'] === 'application/json', `${where}: Content-Type is ${call.headers['content-type']}, not application/json`);
      const body = parsedJson(call.text);
      const note = body.ok && isRecord(body.value) ? body.value : null;
      check(note !== null && Object.keys(note).every((key) => NOTE_FIELDS.includes(key)), `${where}: the body has a field the ServiceNote schema does not declare`);
      check(
        note !== null &&
          sameList(Object.keys(note), REPLY_FIELDS) &&
          typeof note.text === 'string' &&
          note.text !== '' &&
          note.detailDescriptionFlag === true &&
          note.internalAnalysisFlag === false &&
          note.resolutionFlag === false,
        `${where}: the body is not one Discussion note (not Internal, not Resolution), and nothing else`,
      );
    }
    if (!ownAnswer(call)) continue;
    const { status, body } = call.answer;
    if (status >= 300) {
      check(isRecord(body) && typeof body.code === 'string' && typeof body.message === 'string', `answer to ${where}: ${status} without ConnectWise's error body`);
    } else if (call.endpoint === 'ticket') {
      const ticketStatus = isRecord(body) ? body.status : undefined;
      check(
        status === 200 && isRecord(body) && isPositiveInteger(body.id) && typeof body.closedFlag === 'boolean' && isRecord(ticketStatus) && typeof ticketStatus.name === 'string',
        `answer to ${where}: not a Ticket with its id, closedFlag and status`,
      );
    } else {
      check(
        status === 201 && isRecord(body) && isPositiveInteger(body.id) && isPositiveInteger(body.ticketId) && typeof body.text === 'string' && Object.keys(body).every((key) => NOTE_FIELDS.includes(key)),
        `answer to ${where}: not the created ServiceNote`,
      );
    }
  }
  return problems;
};
