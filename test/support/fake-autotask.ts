import type { IncomingMessage } from 'node:http';
import { startFakeHelpdeskServer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * An Autotask zone on loopback (127.0.0.1, a free port), as far as the helpdesk adapter uses one,
 * under /atservicesrest/v1.0: a ticket's item (`GET /Tickets/{id}`), the TicketNotes field
 * information with its picklists (`GET /TicketNotes/entityInformation/fields`), and a note's creation
 * under its ticket (`POST /Tickets/{id}/Notes`). It keeps state as Autotask does: tickets with a
 * status picklist id, and their notes with the picklist values they were created with; it refuses
 * what Autotask refuses (headers that are not the API user's, with 401; a note whose noteType or
 * publish is not an active value of the instance's picklists, or without a description, with 400; a
 * note under an unknown ticket with 404), and answers an unknown ticket's item as null. Autotask's
 * error body is a list of messages under `errors`. The picklists are the instance's, as a test sets
 * them: the defaults below are common ones, not Autotask's guarantee.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type AutotaskEndpoint = 'ticket' | 'fields' | 'notes';
export type AutotaskCall = HelpdeskCall<AutotaskEndpoint>;

export type Picklist = Array<{ value: string; label: string; isDefaultValue?: boolean; isActive?: boolean }>;

export interface FakeAutotaskOptions {
  /** The API user's credentials and the integration's tracking identifier: the only headers accepted. */
  integrationCode: string;
  username: string;
  secret: string;
  /** The instance's TicketNotes picklists (defaults: publish 1 All Autotask Users, 2 Internal Only; noteType 1, the default, and 2). */
  publish?: Picklist;
  noteType?: Picklist;
}

export interface AutotaskNote {
  id: number;
  title: unknown;
  description: string;
  noteType: number;
  publish: number;
  /** Every other field the body set. */
  other: Record<string, unknown>;
}

export const DEFAULT_PUBLISH: Picklist = [
  { value: '1', label: 'All Autotask Users', isActive: true },
  { value: '2', label: 'Internal Only', isActive: true },
  { value: '4', label: 'Internal & Co-managed', isActive: true },
];
export const DEFAULT_NOTE_TYPE: Picklist = [
  { value: '1', label: 'Task Summary', isDefaultValue: true, isActive: true },
  { value: '2', label: 'Task Detail', isActive: true },
  { value: '13', label: 'System Workflow Note', isActive: false },
];

const API = '/atservicesrest/v1.0';
const TICKET_PATH = /^\/atservicesrest\/v1\.0\/Tickets\/([^/?#]+)$/;
const NOTES_PATH = /^\/atservicesrest\/v1\.0\/Tickets\/([^/?#]+)\/Notes$/;
const FIELDS_PATH = `${API}/TicketNotes/entityInformation/fields`;

const errors = (...messages: string[]) => ({ errors: messages });

/** A field as entityInformation/fields describes it. */
const picklistField = (name: string, values: Picklist) => ({
  name,
  dataType: 'integer',
  length: 0,
  isRequired: true,
  isReadOnly: false,
  isQueryable: true,
  isReference: false,
  referenceEntityType: '',
  isPickList: true,
  picklistValues: values.map((entry, index) => ({ value: entry.value, label: entry.label, isDefaultValue: entry.isDefaultValue ?? false, sortOrder: index, parentValue: '', isActive: entry.isActive ?? true, isSystem: true })),
  picklistParentValueField: '',
  isSupportedWebhookField: false,
});
const plainField = (name: string, dataType: string, isRequired: boolean) => ({
  name,
  dataType,
  length: dataType === 'string' ? 250 : 0,
  isRequired,
  isReadOnly: false,
  isQueryable: true,
  isReference: name === 'ticketID',
  referenceEntityType: name === 'ticketID' ? 'Ticket' : '',
  isPickList: false,
  picklistValues: null,
  picklistParentValueField: '',
  isSupportedWebhookField: false,
});

export const startFakeAutotask = async (options: FakeAutotaskOptions) => {
  const tickets = new Map<number, { status: number; notes: AutotaskNote[] }>();
  const picklists = { publish: options.publish ?? DEFAULT_PUBLISH, noteType: options.noteType ?? DEFAULT_NOTE_TYPE };
  let nextNoteId = 30_000_001;

  const find = (rawId: string) => (/^[1-9][0-9]*$/.test(rawId) ? tickets.get(Number(rawId)) : undefined);
  const activeValue = (list: Picklist, value: unknown) => Number.isSafeInteger(value) && list.some((entry) => entry.value === String(value) && entry.isActive !== false);

  const ticketItem = (rawId: string): [number, unknown] => {
    const ticket = find(rawId);
    if (!ticket) return [200, { item: null }];
    const id = Number(rawId);
    const item = {
      id,
      ticketNumber: `T20261126.${String(id).padStart(4, '0')}`,
      title: 'VPN access',
      status: ticket.status,
      priority: 2,
      queueID: 29683,
      companyID: 0,
      completedDate: ticket.status === 5 ? '2026-11-26T09:00:00Z' : null,
      createDate: '2026-11-20T08:00:00Z',
      lastActivityDate: '2026-11-26T09:00:00Z',
      userDefinedFields: [],
    };
    return [200, { item }];
  };

  const fields = (): [number, unknown] => [
    200,
    {
      fields: [
        plainField('id', 'long', true),
        plainField('ticketID', 'integer', true),
        plainField('title', 'string', false),
        plainField('description', 'string', true),
        picklistField('noteType', picklists.noteType),
        picklistField('publish', picklists.publish),
        plainField('createDateTime', 'datetime', false),
      ],
    },
  ];

  const addNote = (rawId: string, text: string): [number, unknown] => {
    const ticket = find(rawId);
    if (!ticket) return [404, errors(`Ticket ${rawId} not found.`)];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [400, errors('The request body is not valid JSON.')];
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return [400, errors('The request body is not an entity.')];
    const { id: _, ticketID, title, description, noteType, publish, ...other } = body as Record<string, unknown>;
    if (ticketID !== undefined && ticketID !== Number(rawId)) return [400, errors('ticketID does not match the parent id.')];
    if (typeof description !== 'string' || description.trim() === '') return [400, errors('description is required.')];
    if (!activeValue(picklists.noteType, noteType)) return [400, errors(`Value ${String(noteType)} is not a valid value for noteType.`)];
    if (!activeValue(picklists.publish, publish)) return [400, errors(`Value ${String(publish)} is not a valid value for publish.`)];
    const note: AutotaskNote = { id: nextNoteId++, title, description, noteType: noteType as number, publish: publish as number, other };
    ticket.notes.push(note);
    return [200, { itemId: note.id }];
  };

  const authorised = (req: IncomingMessage) =>
    req.headers.apiintegrationcode === options.integrationCode && req.headers.username === options.username && req.headers.secret === options.secret;

  const route = (method: string, url: string): { endpoint: AutotaskEndpoint | null; id?: string } => {
    const [path = ''] = url.split('?', 1);
    const noteId = NOTES_PATH.exec(path)?.[1];
    if (noteId !== undefined && method === 'POST') return { endpoint: 'notes', id: noteId };
    if (path === FIELDS_PATH && method === 'GET') return { endpoint: 'fields' };
    const id = TICKET_PATH.exec(path)?.[1];
    if (id !== undefined && method === 'GET') return { endpoint: 'ticket', id };
    return { endpoint: null };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['ticket', 'fields', 'notes'],
    route,
    answer: (req, { endpoint, id }, text) =>
      !authorised(req) ? [401, errors('User is not authorized to access this resource.')]
      : endpoint === null ? [404, errors('The requested resource does not exist.')]
      : endpoint === 'ticket' ? ticketItem(id!)
      : endpoint === 'fields' ? fields()
      : addNote(id!, text),
    contentTypes: { json: 'application/json; charset=utf-8', raw: 'text/html; charset=utf-8' },
  });

  return {
    ...server,
    /** Creates the ticket or moves it to another status (a picklist id: 1 New, 5 Complete, 8 In Progress in common defaults). */
    setTicket: (id: string | number, status: number) => {
      const existing = tickets.get(Number(id));
      if (existing) existing.status = status;
      else tickets.set(Number(id), { status, notes: [] });
    },
    statusOf: (id: string | number) => tickets.get(Number(id))?.status,
    notes: (id: string | number) => tickets.get(Number(id))?.notes ?? [],
    /** Replaces the instance's picklists, as an admin editing them would. */
    setPicklists: (changed: { publish?: Picklist; noteType?: Picklist }) => Object.assign(picklists, changed),
  };
};

export type FakeAutotask = Awaited<ReturnType<typeof startFakeAutotask>>;
