import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import type { HaloPsaCall } from './fake-halopsa.ts';
import type { HelpdeskCall } from './fake-helpdesk-server.ts';
import type { JsmCall } from './fake-jsm.ts';
import type { ZendeskCall } from './fake-zendesk.ts';

/**
 * The helpdesk vendors' OpenAPI subsets (test/fixtures/helpdesk-apis/openapi) as validators, and
 * per vendor one check over the calls a fake kept: every request the adapter sent must be one the
 * vendor's document describes (operation, path parameters, headers, body), and every answer the
 * fake made itself (not a scripted failure) must be one the vendor would send. The checks answer a
 * list of problems, empty when every call fits, so that the adapter tests and the end-to-end tests
 * hold the same contract; which endpoints and answers a test file exercised is that file's concern.
 * The small readers below (`at`, `ownAnswer`, `collector`, ...) are shared with the checks of vendors
 * that publish no OpenAPI document (contract-<vendor>.ts), which check their documented calls instead.
 */

const OPENAPI = join(import.meta.dirname, '..', 'fixtures', 'helpdesk-apis', 'openapi');

/** An Ajv validator as a list of problems (`path message`), empty when the value fits. */
type Check = (value: unknown) => string[];
const problemsOf = (validate: ValidateFunction): Check => (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

const compiled = (ajv: Ajv, ref: string): Check => {
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`no schema at ${ref}`);
  return problemsOf(validate);
};

const readDocument = (file: string) => JSON.parse(readFileSync(join(OPENAPI, file), 'utf8'));

/** Where a call is, for its problems. */
export const at = (call: HelpdeskCall<string>) => `${call.method} ${call.path}`;

/** Whether the fake made the answer itself: a scripted failure or a hang says nothing of the vendor. */
export const ownAnswer = <E extends string>(call: HelpdeskCall<E>): call is HelpdeskCall<E> & { answer: { status: number; body: unknown } } => !call.scripted && call.answer !== 'hang';

export const parsedJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A whole number above 0, as the vendors' ids are. */
export const isPositiveInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

/** The user and password of an `Authorization: Basic` header, or null when it is not Basic credentials in base64. */
export const basicCredentialsOf = (header: string | undefined): { user: string; password: string } | null => {
  const encoded = /^Basic ([A-Za-z0-9+/]+=*)$/.exec(header ?? '')?.[1];
  if (encoded === undefined) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
};

export const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/** Collects problems: `check(false, message)` records the message. */
export const collector = () => {
  const problems: string[] = [];
  const check = (ok: boolean, message: string) => {
    if (!ok) problems.push(message);
  };
  const schemaCheck = (found: string[], message: string) => {
    if (found.length > 0) problems.push(`${message}: ${found.join('; ')}`);
  };
  return { problems, check, schemaCheck };
};

// Zendesk

/**
 * Zendesk's OpenAPI subset as JSON Schema. Ajv reads OpenAPI 3.0's `nullable` itself; the other
 * OpenAPI-only words (`example`, `readOnly`) are annotations it is told to pass over.
 */
export const zendeskContract = () => {
  const document = readDocument('zendesk.subset.json');
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('int64', true);
  ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addSchema(document, 'zendesk');
  const schema = (name: string) => compiled(ajv, `zendesk#/components/schemas/${name}`);
  // CreateTokenForGrantType declares no request body: its parameters are a table in the description.
  const tokenParameters = document.paths['/oauth/tokens'].post.description as string;
  return { document, schema, tokenParameters };
};

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every call in `calls` that Zendesk's document does not describe, or that the fake answered as Zendesk would not. */
export const zendeskContractProblems = (calls: readonly ZendeskCall[]): string[] => {
  const { document, schema, tokenParameters } = zendeskContract();
  const ticketUpdateRequest = schema('TicketUpdateRequest');
  const answers = { token: schema('OAuthTokenForGrantTypesObject'), show: schema('TicketResponse'), update: schema('TicketUpdateResponse') };
  const { problems, check, schemaCheck } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no operation of the document is this request`);
      continue;
    }
    if (call.endpoint === 'token') {
      check(document.paths['/oauth/tokens'][call.method.toLowerCase()] !== undefined, `${where}: not an operation of /oauth/tokens`);
      const body = parsedJson(call.text);
      if (!body.ok || !isRecord(body.value)) {
        problems.push(`${where}: the token request is not a JSON object`);
      } else {
        for (const key of Object.keys(body.value)) check(new RegExp(`^\\| ${escaped(key)} `, 'm').test(tokenParameters), `${where}: ${key} is not a documented parameter`);
        check(body.value.grant_type === 'client_credentials', `${where}: grant_type is ${String(body.value.grant_type)}, not client_credentials`);
        const expiresIn = body.value.expires_in;
        check(typeof expiresIn === 'number' && expiresIn > 300 && expiresIn < 172_800, `${where}: expires_in ${String(expiresIn)} is not more than 300 and less than 172800`);
      }
    } else {
      check(document.paths['/api/v2/tickets/{ticket_id}'][call.method.toLowerCase()] !== undefined, `${where}: not an operation of /api/v2/tickets/{ticket_id}`);
      // TicketId: an int64 path parameter, with no `.json` suffix.
      check(/^\/api\/v2\/tickets\/[1-9]\d*$/.test(call.path), `${where}: the path is not /api/v2/tickets/{ticket_id} with a ticket id`);
      if (call.endpoint === 'update') {
        const body = parsedJson(call.text);
        if (!body.ok) {
          problems.push(`${where}: the body is not JSON`);
        } else {
          schemaCheck(ticketUpdateRequest(body.value), `${where}: the body is not a TicketUpdateRequest`);
          // Zendesk's schemas take any other field, so the body's fields are checked here: a reply
          // is the public comment alone, and must never change the ticket's status or anything else.
          const { value } = body;
          const ticket = isRecord(value) ? value.ticket : undefined;
          const comment = isRecord(ticket) ? ticket.comment : undefined;
          check(
            isRecord(value) && sameList(Object.keys(value), ['ticket']) && isRecord(ticket) && sameList(Object.keys(ticket), ['comment']) && isRecord(comment) && sameList(Object.keys(comment), ['body', 'public']),
            `${where}: the body is not ticket.comment with body and public alone`,
          );
        }
      }
    }
    // Answers the fake made itself (not scripted failures) must be what Zendesk would send.
    if (ownAnswer(call) && (call.answer.status === 200 || call.answer.status === 201)) {
      schemaCheck(answers[call.endpoint](call.answer.body), `answer to ${where}`);
    }
  }
  return problems;
};

// Jira Service Management

/**
 * Atlassian's OpenAPI subset as JSON Schema, as published: every schema in it sets
 * `additionalProperties: false`, and it is kept so here. The vendor's own examples validate as
 * they are (the adapter tests check it), so nothing needs relaxing for them; an answer with a field
 * added after the snapshot does not, which is why the adapter reads answers leniently and this
 * document checks the fake's answers, not the adapter's tolerance. Ajv is told the document's
 * formats; OpenAPI-only words (`example`, `readOnly`, `deprecated`) are annotations it passes over.
 */
export const jsmContract = () => {
  const document = readDocument('jsm.subset.json');
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('int32', true);
  ajv.addFormat('int64', true);
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  ajv.addSchema(document, 'jsm');
  const schema = (name: string) => compiled(ajv, `jsm#/components/schemas/${name}`);
  return { document, schema };
};

export const JSM_REQUEST_TEMPLATE = '/rest/servicedeskapi/request/{issueIdOrKey}';
export const JSM_COMMENT_TEMPLATE = '/rest/servicedeskapi/request/{issueIdOrKey}/comment';

/** Every call in `calls` that Atlassian's document does not describe, or that the fake answered as JSM would not. */
export const jsmContractProblems = (calls: readonly JsmCall[]): string[] => {
  const { document, schema } = jsmContract();
  const commentCreate = schema('CommentCreateDTO');
  const errorResponse = schema('ErrorResponse');
  const answers = { request: schema('CustomerRequestDTO'), comment: schema('CommentDTO') };
  const { problems, check, schemaCheck } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no operation of the document is this request`);
      continue;
    }
    const template = call.endpoint === 'request' ? JSM_REQUEST_TEMPLATE : JSM_COMMENT_TEMPLATE;
    const operation = document.paths[template][call.method.toLowerCase()];
    check(operation !== undefined, `${where}: not an operation of ${template}`);
    // issueIdOrKey: a key or a numeric id, with no query (no `expand`) and nothing after it.
    check(/^\/rest\/servicedeskapi\/request\/([A-Z][A-Z0-9_]*-[1-9]\d*|[1-9]\d*)(\/comment)?$/.test(call.path), `${where}: the path is not ${template} with an issue key or id`);
    check(/^Basic [A-Za-z0-9+/]+=*$/.test(call.headers.authorization ?? ''), `${where}: Authorization is not Basic credentials in base64`);
    if (call.endpoint === 'comment') {
      check(call.headers['content-type'] === 'application/json', `${where}: Content-Type is ${call.headers['content-type']}, not application/json`);
      const body = parsedJson(call.text);
      if (!body.ok) {
        problems.push(`${where}: the body is not JSON`);
      } else {
        schemaCheck(commentCreate(body.value), `${where}: the body is not a CommentCreateDTO`);
        check(isRecord(body.value) && sameList(Object.keys(body.value), ['body', 'public']), `${where}: the body has other fields than body and public, in that order`);
      }
    } else {
      check(call.text === '', `${where}: a read sent a body`);
    }
    if (!ownAnswer(call) || operation === undefined) continue;
    // Answers the fake made itself (not scripted failures) must be what JSM would send: a status
    // the operation declares, and its body in the declared shape.
    const { status, body } = call.answer;
    check(Object.keys(operation.responses).includes(String(status)), `answer to ${where}: status ${status} is not declared`);
    if (status < 300) schemaCheck(answers[call.endpoint](body), `answer to ${where}`);
    else schemaCheck(errorResponse(body), `answer to ${where}`);
  }
  return problems;
};

// HaloPSA

const HALO_ACTION_REQUEST = '/paths/~1Actions/post/requestBody/content/application~1json/schema';
const HALO_TICKET_ANSWER = '/paths/~1Tickets~1%7Bid%7D/get/responses/200/content/application~1json/schema';
const HALO_ACTION_ANSWER = '/paths/~1Actions/post/responses/201/content/application~1json/schema';
const INT32_MAX = 2_147_483_647;

/**
 * Halo's OpenAPI subset as JSON Schema. Ajv reads OpenAPI 3.0's `nullable` itself; Halo's formats
 * that JSON Schema lacks are registered as annotations. `additionalProperties: false` is kept as
 * Halo wrote it: every vendor sample and every answer of the fake fits it, and the answers that do
 * not (fields a later Halo adds) are the scripted ones the tolerance test makes on purpose.
 * `actionRequest` and `answers` are the operations' own schemas, reached by JSON pointer.
 */
export const haloPsaContract = () => {
  const document = readDocument('halopsa.subset.json');
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const format of ['int32', 'int64', 'double', 'float', 'date-span']) ajv.addFormat(format, true);
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
  ajv.addSchema(document, 'halo');
  const pointer = (path: string) => compiled(ajv, `halo#${path}`);
  const schema = (name: string) => pointer(`/components/schemas/${name}`);
  return {
    document,
    at: pointer,
    schema,
    actionRequest: pointer(HALO_ACTION_REQUEST),
    answers: { ticket: pointer(HALO_TICKET_ANSWER), actions: pointer(HALO_ACTION_ANSWER) },
  };
};

/**
 * Every call in `calls` that Halo's document (or, for the token, RFC 6749) does not describe, or
 * that the fake answered as Halo would not. `clientId` is the API application's, which every token
 * request must name.
 */
export const haloPsaContractProblems = (calls: readonly HaloPsaCall[], expected: { clientId: string }): string[] => {
  const { document, actionRequest, answers } = haloPsaContract();
  const actionMediaTypes = Object.keys(document.paths['/Actions'].post.requestBody.content);
  const { problems, check, schemaCheck } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no operation of the document is this request`);
      continue;
    }
    if (call.endpoint === 'token') {
      // RFC 6749 §4.4.2, form-encoded: exactly these fields, the tenant alone in the query.
      check(call.method === 'POST', `${where}: the token request is not a POST`);
      check(/^\/auth\/token(\?tenant=[^&=]+)?$/.test(call.path), `${where}: the token path is not /auth/token with at most the tenant`);
      check(call.headers['content-type'] === 'application/x-www-form-urlencoded', `${where}: Content-Type is ${call.headers['content-type']}, not application/x-www-form-urlencoded`);
      const form = new URLSearchParams(call.text);
      check(sameList([...form.keys()], ['grant_type', 'client_id', 'client_secret', 'scope']), `${where}: the form's fields are ${[...form.keys()].join(', ')}`);
      check(form.get('grant_type') === 'client_credentials', `${where}: grant_type is ${form.get('grant_type')}, not client_credentials`);
      check(form.get('client_id') === expected.clientId, `${where}: client_id is not the API application's`);
      check(sameList((form.get('scope') ?? '').split(' '), ['read:tickets', 'edit:tickets']), `${where}: scope is ${form.get('scope')}, not read:tickets edit:tickets`);
      // The token is an RFC 6749 §5.1 answer; Halo's document does not describe it.
      if (ownAnswer(call) && call.answer.status === 200) {
        const body = call.answer.body;
        check(
          isRecord(body) && typeof body.access_token === 'string' && body.token_type === 'Bearer' && typeof body.expires_in === 'number',
          `answer to ${where}: not an access_token with token_type Bearer and expires_in`,
        );
      }
      continue;
    }
    check(/^Bearer \S+$/.test(call.headers.authorization ?? ''), `${where}: Authorization is not a Bearer token`);
    if (call.endpoint === 'ticket') {
      check(call.method === 'GET', `${where}: a ticket read is not a GET`);
      // The int32 path parameter, no query parameter, no other path.
      const id = /^\/api\/Tickets\/([1-9]\d*)$/.exec(call.path)?.[1];
      check(id !== undefined && Number(id) <= INT32_MAX, `${where}: the path is not /api/Tickets/{id} with an int32 id`);
      check(call.text === '', `${where}: a read sent a body`);
    } else {
      check(call.method === 'POST', `${where}: adding an action is not a POST`);
      check(call.path === '/api/Actions', `${where}: the path is not /api/Actions`);
      check(actionMediaTypes.includes(call.headers['content-type'] ?? ''), `${where}: Content-Type ${call.headers['content-type']} is not one the operation takes`);
      const body = parsedJson(call.text);
      if (!body.ok) {
        problems.push(`${where}: the body is not JSON`);
      } else {
        schemaCheck(actionRequest(body.value), `${where}: the body is not the operation's array of Actions`);
        const [action, ...more] = Array.isArray(body.value) ? (body.value as unknown[]) : [];
        check(
          Array.isArray(body.value) &&
            more.length === 0 &&
            isRecord(action) &&
            sameList(Object.keys(action).sort(), ['hiddenfromuser', 'note', 'ticket_id']) &&
            typeof action.ticket_id === 'number' &&
            typeof action.note === 'string' &&
            action.hiddenfromuser === false,
          `${where}: the body is not one action of ticket_id, note and hiddenfromuser false`,
        );
      }
    }
    // Answers the fakes made themselves (not scripted failures) must be what Halo would send.
    if (ownAnswer(call) && call.answer.status >= 200 && call.answer.status < 300) {
      schemaCheck(answers[call.endpoint](call.answer.body), `answer to ${where}`);
    }
  }
  return problems;
};
