import type { ServiceNowCall } from './fake-servicenow.ts';
import { at, collector, isRecord, ownAnswer, parsedJson, sameList } from './helpdesk-contracts.ts';

/**
 * ServiceNow publishes no OpenAPI document for the Table API, so its contract here is the product
 * documentation's ("Table API", ServiceNow/ServiceNowDocs markdown/api-reference/rest-apis/
 * c_TableAPI.md, release australia): each operation's path and its documented query parameters, the
 * JSON bodies and answers, and the adapter's own rule that a reply sets `comments` alone. The check
 * answers a list of problems, empty when every call fits, for the adapter and end-to-end tests alike.
 */

/** The query parameters each operation documents. */
const DOCUMENTED_PARAMETERS: Record<'record' | 'query' | 'update', readonly string[]> = {
  record: ['sysparm_display_value', 'sysparm_exclude_reference_link', 'sysparm_fields', 'sysparm_query_no_domain', 'sysparm_view'],
  query: [
    'sysparm_display_value',
    'sysparm_exclude_reference_link',
    'sysparm_fields',
    'sysparm_limit',
    'sysparm_no_count',
    'sysparm_offset',
    'sysparm_query',
    'sysparm_query_category',
    'sysparm_query_no_domain',
    'sysparm_suppress_pagination_header',
    'sysparm_view',
  ],
  update: ['sysparm_display_value', 'sysparm_fields', 'sysparm_input_display_value', 'sysparm_query_no_domain', 'sysparm_view'],
};

const PATHS = { record: /^\/api\/now\/table\/incident\/[0-9a-f]{32}$/, query: /^\/api\/now\/table\/incident$/, update: /^\/api\/now\/table\/incident\/[0-9a-f]{32}$/ };
const METHODS = { record: 'GET', query: 'GET', update: 'PATCH' };

/** A field of a record as the Table API renders stored values: a string, or a reference's link and sys_id. */
const isFieldValue = (value: unknown) => typeof value === 'string' || (isRecord(value) && typeof value.link === 'string' && typeof value.value === 'string');
const isRecordBody = (value: unknown) => isRecord(value) && Object.values(value).every(isFieldValue);

/** Every call in `calls` that the Table API documentation does not describe, or that the fake answered as ServiceNow would not. */
export const serviceNowContractProblems = (calls: readonly ServiceNowCall[]): string[] => {
  const { problems, check } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no Table API operation on incident is this request`);
      continue;
    }
    const [path = '', search = ''] = call.path.split('?', 2);
    const query = new URLSearchParams(search);
    check(call.method === METHODS[call.endpoint], `${where}: not the ${METHODS[call.endpoint]} of the operation`);
    check(PATHS[call.endpoint].test(path), `${where}: the path is not the operation's, with a sys_id where it takes one`);
    const undocumented = [...query.keys()].filter((name) => !DOCUMENTED_PARAMETERS[call.endpoint!].includes(name));
    check(undocumented.length === 0, `${where}: ${undocumented.join(', ')} is not a documented parameter`);
    check(/^Basic [A-Za-z0-9+/]+=*$/.test(call.headers.authorization ?? ''), `${where}: Authorization is not Basic credentials in base64`);
    check(call.headers.accept === 'application/json', `${where}: Accept is not application/json`);
    if (call.endpoint === 'update') {
      check(call.headers['content-type'] === 'application/json', `${where}: Content-Type is ${call.headers['content-type']}, not application/json`);
      const body = parsedJson(call.text);
      // The customer-visible journal field alone: never work_notes, never the state or anything else.
      check(body.ok && isRecord(body.value) && sameList(Object.keys(body.value), ['comments']) && typeof body.value.comments === 'string', `${where}: the body is not {comments} alone`);
    } else {
      check(call.text === '', `${where}: a read sent a body`);
      check(query.get('sysparm_display_value') === 'false', `${where}: a read does not ask for stored values`);
      if (call.endpoint === 'query') check(/^number=[A-Z0-9]+$/.test(query.get('sysparm_query') ?? ''), `${where}: the encoded query is not one number=<incident number> condition`);
    }
    if (!ownAnswer(call)) continue;
    const { status, body } = call.answer;
    if (status === 200) {
      const result = isRecord(body) ? body.result : undefined;
      const records = call.endpoint === 'query' ? result : [result];
      check(Array.isArray(records) && records.every(isRecordBody), `answer to ${where}: result is not ${call.endpoint === 'query' ? 'a list of records' : 'a record'} of field values`);
    } else {
      const error = isRecord(body) ? body.error : undefined;
      check(isRecord(body) && body.status === 'failure' && isRecord(error) && typeof error.message === 'string', `answer to ${where}: ${status} without ServiceNow's error body`);
    }
  }
  return problems;
};
