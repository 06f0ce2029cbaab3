import type { IncomingMessage } from 'node:http';
import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeHelpdeskServer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A ConnectWise PSA site on loopback (127.0.0.1, a free port), as far as the helpdesk adapter uses
 * one: getServiceTicketsById and postServiceTicketsByParentIdNotes under /v4_6_release/apis/3.0. It
 * keeps state as ConnectWise does: tickets with a board status (its name is the board's own) and
 * `closedFlag`, and their notes with the three flags that place them (Discussion, Internal,
 * Resolution); it honours `fields` (top-level names), and refuses what ConnectWise refuses (Basic
 * credentials that are not `company+public:private`, or no `clientId`, with 401; an unknown ticket
 * with 404; a note without text or without any flag set with 400). Tickets are the vendor sample (an
 * excerpt of a real ticket) with their own id and status, so a read that asks for every field
 * carries fields the adapter must pass over.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type ConnectWiseEndpoint = 'ticket' | 'notes';
export type ConnectWiseCall = HelpdeskCall<ConnectWiseEndpoint>;

export interface FakeConnectWiseOptions {
  /** The API member's login: the only Basic credentials and client id accepted. */
  companyId: string;
  publicKey: string;
  privateKey: string;
  clientId: string;
}

export interface ConnectWiseNote {
  id: number;
  text: string;
  detailDescriptionFlag: boolean;
  internalAnalysisFlag: boolean;
  resolutionFlag: boolean;
  /** Every other field the note's body set. */
  other: Record<string, unknown>;
}

interface Ticket {
  statusName: string;
  closed: boolean;
  notes: ConnectWiseNote[];
}

/** The vendor sample: a ticket as the API renders it (only some of its fields were collected). */
const TICKET_EXAMPLE = helpdeskSample('connectwise-get-ticket.response.excerpt.json');

const API = '/v4_6_release/apis/3.0';
const TICKET_PATH = /^\/v4_6_release\/apis\/3\.0\/service\/tickets\/([^/?#]+)$/;
const NOTES_PATH = /^\/v4_6_release\/apis\/3\.0\/service\/tickets\/([^/?#]+)\/notes$/;

/** ConnectWise's error body: a code and a message, and for an invalid object the fields at fault. */
const failure = (code: string, message: string, errors?: Array<{ code: string; message: string; resource: string; field: string }>) => ({ code, message, ...(errors ? { errors } : {}) });
const NOT_AUTHENTICATED = failure('Unauthorized', 'Incorrect public/private key or client id.');
const NOT_FOUND = failure('NotFound', 'Service ticket was not found.');
const invalidNote = (field: string, message: string) => failure('InvalidObject', 'serviceNote object is invalid', [{ code: 'InvalidField', message, resource: 'serviceNote', field }]);

const isFlag = (value: unknown) => value === undefined || typeof value === 'boolean';

export const startFakeConnectWise = async (options: FakeConnectWiseOptions) => {
  const tickets = new Map<number, Ticket>();
  const expectedAuthorization = `Basic ${Buffer.from(`${options.companyId}+${options.publicKey}:${options.privateKey}`, 'utf8').toString('base64')}`;
  let nextNoteId = 700_001;
  let origin = '';

  const find = (rawId: string) => (/^[1-9][0-9]*$/.test(rawId) ? tickets.get(Number(rawId)) : undefined);

  /** The ticket as the API renders it: every field of the sample, or those `fields` names. */
  const ticketBody = (id: number, ticket: Ticket, query: URLSearchParams) => {
    const statusId = 500 + ticket.statusName.length;
    const full: Record<string, unknown> = {
      ...TICKET_EXAMPLE,
      id,
      status: { id: statusId, name: ticket.statusName, _info: { status_href: `${origin}${API}/service/boards/30/statuses/${statusId}` } },
      closedFlag: ticket.closed,
      ...(ticket.closed ? {} : { closedBy: undefined, closedDate: undefined, dateResolved: undefined }),
      _info: { lastUpdated: '2026-11-26T09:00:00Z', updatedBy: 'apiuser', notes_href: `${origin}${API}/service/tickets/${id}/notes` },
    };
    const fields = query.get('fields');
    // Fields a ticket does not have (an open ticket's closedDate) are left out, as are those `fields` does not name.
    const named = fields === null ? Object.keys(full) : fields.split(',').filter((name) => Object.hasOwn(full, name));
    return Object.fromEntries(named.filter((name) => full[name] !== undefined).map((name) => [name, full[name]]));
  };

  const read = (rawId: string, query: URLSearchParams): [number, unknown] => {
    const ticket = find(rawId);
    return ticket ? [200, ticketBody(Number(rawId), ticket, query)] : [404, NOT_FOUND];
  };

  const addNote = (rawId: string, text: string): [number, unknown] => {
    const ticket = find(rawId);
    if (!ticket) return [404, NOT_FOUND];
    let note: unknown;
    try {
      note = JSON.parse(text);
    } catch {
      return [400, failure('InvalidObject', 'The request body is not valid JSON.')];
    }
    if (typeof note !== 'object' || note === null || Array.isArray(note)) return [400, failure('InvalidObject', 'serviceNote object is invalid')];
    const { text: noteText, detailDescriptionFlag, internalAnalysisFlag, resolutionFlag, ...other } = note as Record<string, unknown>;
    if (typeof noteText !== 'string' || noteText.trim() === '') return [400, invalidNote('text', 'The text field is required.')];
    if (![detailDescriptionFlag, internalAnalysisFlag, resolutionFlag].every(isFlag)) return [400, invalidNote('detailDescriptionFlag', 'Flags must be true or false.')];
    // One of Discussion, Internal or Resolution must be chosen, as in the ticket's note editor.
    if (detailDescriptionFlag !== true && internalAnalysisFlag !== true && resolutionFlag !== true) return [400, invalidNote('detailDescriptionFlag', 'At least one flag must be selected.')];
    const created: ConnectWiseNote = {
      id: nextNoteId++,
      text: noteText,
      detailDescriptionFlag: detailDescriptionFlag === true,
      internalAnalysisFlag: internalAnalysisFlag === true,
      resolutionFlag: resolutionFlag === true,
      other,
    };
    ticket.notes.push(created);
    return [
      201,
      {
        id: created.id,
        ticketId: Number(rawId),
        text: created.text,
        detailDescriptionFlag: created.detailDescriptionFlag,
        internalAnalysisFlag: created.internalAnalysisFlag,
        resolutionFlag: created.resolutionFlag,
        member: { id: 176, identifier: 'apiuser', name: 'API Member' },
        dateCreated: '2026-11-26T09:00:00Z',
        createdBy: 'apiuser',
        internalFlag: created.internalAnalysisFlag,
        externalFlag: created.detailDescriptionFlag,
        _info: { lastUpdated: '2026-11-26T09:00:00Z', updatedBy: 'apiuser' },
      },
    ];
  };

  const authorised = (req: IncomingMessage) => req.headers.authorization === expectedAuthorization && req.headers.clientid === options.clientId;

  const route = (method: string, url: string): { endpoint: ConnectWiseEndpoint | null; id?: string; query: URLSearchParams } => {
    const [path = '', search = ''] = url.split('?', 2);
    const query = new URLSearchParams(search);
    const noteId = NOTES_PATH.exec(path)?.[1];
    if (noteId !== undefined && method === 'POST') return { endpoint: 'notes', id: noteId, query };
    const id = TICKET_PATH.exec(path)?.[1];
    if (id !== undefined && method === 'GET') return { endpoint: 'ticket', id, query };
    return { endpoint: null, query };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['ticket', 'notes'],
    route,
    answer: (req, { endpoint, id, query }, text) =>
      !authorised(req) ? [401, NOT_AUTHENTICATED]
      : endpoint === null ? [404, failure('NotFound', 'The requested resource was not found.')]
      : endpoint === 'ticket' ? read(id!, query)
      : addNote(id!, text),
    contentTypes: { json: 'application/json; charset=utf-8', raw: 'text/html; charset=utf-8' },
  });
  origin = server.url;

  return {
    ...server,
    /** Creates the ticket or moves it to another board status; `closed` is the board status's Closed mark. */
    setTicket: (id: string | number, statusName: string, closed: boolean) => {
      const existing = tickets.get(Number(id));
      if (existing) Object.assign(existing, { statusName, closed });
      else tickets.set(Number(id), { statusName, closed, notes: [] });
    },
    statusOf: (id: string | number) => {
      const ticket = tickets.get(Number(id));
      return ticket ? { statusName: ticket.statusName, closed: ticket.closed } : undefined;
    },
    notes: (id: string | number) => tickets.get(Number(id))?.notes ?? [],
  };
};

export type FakeConnectWise = Awaited<ReturnType<typeof startFakeConnectWise>>;
