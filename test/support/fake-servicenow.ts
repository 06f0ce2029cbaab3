import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeHelpdeskServer, type HelpdeskCall, type ScriptedAnswer } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A ServiceNow instance on loopback (127.0.0.1, a free port), as far as the helpdesk adapter uses
 * one: the Table API's GET of an incident by sys_id, GET of incidents by an encoded query, and PATCH
 * of an incident. It keeps state as ServiceNow does: incidents with a sys_id, a number and a
 * `state`, and their journal (`comments` customer-visible, `work_notes` internal); it honours
 * `sysparm_fields`, `sysparm_query` (`field=value` conditions joined by `^`) and `sysparm_limit`,
 * records every other field a PATCH sets, and refuses what ServiceNow refuses (Basic credentials
 * that are not the integration user's with 401, an unknown incident with 404, a body that is not
 * JSON with 400). Records are the vendor's GET example with their own sys_id, number and state, so
 * a read that asks for every field carries the many fields the adapter must ignore.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type ServiceNowEndpoint = 'record' | 'query' | 'update';
export type ServiceNowCall = HelpdeskCall<ServiceNowEndpoint>;

export interface FakeServiceNowOptions {
  /** The integration user and password, the only Basic credentials accepted. */
  username: string;
  password: string;
}

interface Incident {
  sysId: string;
  number: string;
  state: string;
  /** Fields a PATCH set other than the journal ones, kept to show that a reply changes nothing else. */
  changed: Record<string, unknown>;
  journal: Array<{ field: 'comments' | 'work_notes'; text: string }>;
}

/** The vendor's GET example: every field an incident record carries. */
const RECORD_EXAMPLE = helpdeskSample('servicenow-get-incident.response.json').result as Record<string, unknown>;
/** The body ServiceNow sends with a 429 when an inbound REST API rate limit rule is exceeded. */
export const SERVICENOW_RATE_LIMITED = helpdeskSample('servicenow-rate-limit-exceeded.response.json');

const RECORD_PATH = /^\/api\/now\/table\/incident\/([^/?#]+)$/;
const TABLE_PATH = '/api/now/table/incident';

/** ServiceNow's error body: a message and a detail under `error`, and `status: failure`. */
const failure = (message: string, detail: string) => ({ error: { message, detail }, status: 'failure' });
const NOT_AUTHENTICATED = failure('User Not Authenticated', 'Required to provide Auth information');
const NO_RECORD = failure('No Record found', "Record doesn't exist or ACL restricts the record retrieval");
const BAD_BODY = failure('Exception while reading request', 'The payload is not valid JSON.');

export const startFakeServiceNow = async (options: FakeServiceNowOptions) => {
  const bySysId = new Map<string, Incident>();
  const byNumber = new Map<string, Incident>();
  const expectedAuthorization = `Basic ${Buffer.from(`${options.username}:${options.password}`, 'utf8').toString('base64')}`;
  let origin = '';

  /** The record as the Table API renders it: every field of the example, or those `sysparm_fields` names. */
  const recordBody = (incident: Incident, query: URLSearchParams) => {
    const full: Record<string, unknown> = {
      ...RECORD_EXAMPLE,
      ...incident.changed,
      sys_id: incident.sysId,
      number: incident.number,
      state: incident.state,
      incident_state: incident.state,
      sys_domain: { link: `${origin}/api/now/table/sys_user_group/global`, value: 'global' },
    };
    const fields = query.get('sysparm_fields');
    // Invalid fields are ignored, as the documentation says.
    return fields ? Object.fromEntries(fields.split(',').filter((name) => Object.hasOwn(full, name)).map((name) => [name, full[name]])) : full;
  };

  /** The incidents an encoded query of `field=value` conditions joined by `^` matches. */
  const matching = (encoded: string) => {
    const conditions = encoded.split('^').map((condition) => condition.split('='));
    const fieldOf = (incident: Incident, name: string) => (name === 'sys_id' ? incident.sysId : name === 'number' ? incident.number : name === 'state' ? incident.state : undefined);
    return [...bySysId.values()].filter((incident) => conditions.every(([name, value]) => fieldOf(incident, name!) === value));
  };

  const readRecord = (sysId: string, query: URLSearchParams): [number, unknown] => {
    const incident = bySysId.get(sysId);
    return incident ? [200, { result: recordBody(incident, query) }] : [404, NO_RECORD];
  };

  const queryRecords = (query: URLSearchParams): [number, unknown] => {
    const limit = Number(query.get('sysparm_limit') ?? 10_000);
    const found = matching(query.get('sysparm_query') ?? '').slice(0, limit);
    return [200, { result: found.map((incident) => recordBody(incident, query)) }];
  };

  const update = (sysId: string, query: URLSearchParams, text: string): [number, unknown] => {
    const incident = bySysId.get(sysId);
    if (!incident) return [404, NO_RECORD];
    let fields: unknown;
    try {
      fields = JSON.parse(text);
    } catch {
      return [400, BAD_BODY];
    }
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return [400, BAD_BODY];
    for (const [name, value] of Object.entries(fields)) {
      if (name === 'comments' || name === 'work_notes') incident.journal.push({ field: name, text: String(value) });
      else if (name === 'state') incident.state = String(value);
      else incident.changed[name] = value;
    }
    return [200, { result: recordBody(incident, query) }];
  };

  const authorised = (req: IncomingMessage) => req.headers.authorization === expectedAuthorization;

  const route = (method: string, url: string): { endpoint: ServiceNowEndpoint | null; sysId?: string; query: URLSearchParams } => {
    const [path = '', search = ''] = url.split('?', 2);
    const query = new URLSearchParams(search);
    const sysId = RECORD_PATH.exec(path)?.[1];
    if (sysId !== undefined && method === 'GET') return { endpoint: 'record', sysId, query };
    if (sysId !== undefined && method === 'PATCH') return { endpoint: 'update', sysId, query };
    if (path === TABLE_PATH && method === 'GET') return { endpoint: 'query', query };
    return { endpoint: null, query };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['record', 'query', 'update'],
    route,
    answer: (req, { endpoint, sysId, query }, text) =>
      !authorised(req) ? [401, NOT_AUTHENTICATED]
      : endpoint === null ? [400, failure('Requested URI does not represent any resource', 'The path is not a Table API resource.')]
      : endpoint === 'record' ? readRecord(sysId!, query)
      : endpoint === 'query' ? queryRecords(query)
      : update(sysId!, query, text),
    contentTypes: { json: 'application/json;charset=UTF-8', raw: 'text/html;charset=UTF-8' },
  });
  origin = server.url;

  return {
    ...server,
    /** Creates the incident (with a new sys_id) or moves it to another state; answers its sys_id. */
    setIncident: (number: string, state: string) => {
      const existing = byNumber.get(number);
      if (existing) {
        existing.state = state;
        return existing.sysId;
      }
      const incident: Incident = { sysId: randomBytes(16).toString('hex'), number, state, changed: {}, journal: [] };
      bySysId.set(incident.sysId, incident);
      byNumber.set(number, incident);
      return incident.sysId;
    },
    sysIdOf: (number: string) => byNumber.get(number)?.sysId,
    /** The incident's journal entries, oldest first. */
    journal: (numberOrSysId: string) => (byNumber.get(numberOrSysId) ?? bySysId.get(numberOrSysId))?.journal ?? [],
    /** The incident's state and every other field a PATCH set. */
    fieldsOf: (number: string) => {
      const incident = byNumber.get(number);
      return incident ? { state: incident.state, ...incident.changed } : undefined;
    },
    /** The next answer of `endpoint` is the vendor's 429, with the rate limit headers the documentation lists. */
    rateLimitNext: (endpoint: ServiceNowEndpoint, retryAfterSeconds: number) => {
      const answer: ScriptedAnswer = {
        status: 429,
        headers: { 'Retry-After': String(retryAfterSeconds), 'X-RateLimit-Limit': '10', 'X-RateLimit-Reset': '1764150000', 'X-RateLimit-Rule': 'b6e8ac6d0a0a0b1e0063f0c4b5a7d3e1' },
        body: SERVICENOW_RATE_LIMITED,
      };
      server.answerNext(endpoint, answer);
    },
  };
};

export type FakeServiceNow = Awaited<ReturnType<typeof startFakeServiceNow>>;
