import type { Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskTicketState } from '#core/helpdesk.ts';
import { isJsonObject, isPositiveInteger, type HelpdeskHttp } from './helpdesk-http.ts';

/**
 * A Zammad instance's ticket states (`GET /api/v1/ticket_states?expand=true`, docs.zammad.org, API,
 * Ticket, States; `expand=true` adds each association's name beside its id, as for tickets), each
 * with the state type that says what it means. An instance names and adds its own states, but every
 * state has one of Zammad's fixed state types (new, open, pending reminder, pending action,
 * closed, merged, removed); the type's **name**, never the state's name nor the type's id, decides
 * what a ticket's state means here. The ids are what a default install seeds (1 to 7) and a
 * migrated or restored database need not keep them, so an id alone never says `closed`: a state
 * listed without its type's name is not placed.
 */

/**
 * State types as the service sees them: new, open and both pending types wait on someone (a
 * `pending close` ticket is closed by Zammad only when its time comes), so they are open; `closed` is
 * closed; `merged` is closed too, as the inbound recipe reads it: a merged ticket ends for good and
 * lives on as another ticket, which a request would have to be linked to. Zammad has no resolved.
 * `removed` (inactive in a default install) and any type Zammad might add are not placed: the read
 * fails as `unexpected_answer`, so it never destroys.
 */
export const ZAMMAD_STATE_TYPES: Readonly<Record<string, HelpdeskTicketState>> = {
  new: 'open',
  open: 'open',
  'pending reminder': 'open',
  'pending action': 'open',
  closed: 'closed',
  merged: 'closed',
};

/** How long a list of states is trusted before it is read again: states change rarely, and only by an admin. */
export const ZAMMAD_STATES_FRESH_MS = 15 * 60_000;
/**
 * How old a list may be for a state read as closed, which destroys: an admin who just moved a state
 * to another type (a custom "resolved" from closed to open) is heeded within a minute, not fifteen.
 */
export const ZAMMAD_CLOSED_FRESH_MS = 60_000;

export interface ZammadState {
  /** The instance's name for the state (`closed`, `pending close`, or one it added). */
  name: string;
  /** The state type's name (`closed`, `pending action`, ...). */
  typeName: string;
  state: HelpdeskTicketState;
}

type StateList = { byId: ReadonlyMap<number, { name: string; typeName: string | null }>; readAtMs: number };

/**
 * The states of one instance, read once and kept for ZAMMAD_STATES_FRESH_MS (ZAMMAD_CLOSED_FRESH_MS
 * for a closed one): a read of a ticket costs one call, not two. A state id the kept list lacks (a
 * state added since) reads the list again at once, so a new state is known at its first ticket.
 */
export class ZammadStates {
  #list: StateList | null = null;
  #pending: Promise<StateList> | null = null;

  constructor(
    private readonly http: HelpdeskHttp,
    private readonly request: { call: string; url: string; headers: () => Record<string, string> },
    private readonly clock: Clock,
  ) {}

  /** The state with this id and what it means, or `unexpected_answer` when the instance has none such or its type is not placed. */
  async of(stateId: number): Promise<ZammadState> {
    let list = this.#list;
    if (!list || this.#age(list) >= ZAMMAD_STATES_FRESH_MS || !list.byId.has(stateId)) list = await this.#read();
    let placed = placedIn(list, stateId);
    if (placed?.state === 'closed' && this.#age(list) >= ZAMMAD_CLOSED_FRESH_MS) placed = placedIn(await this.#read(), stateId);
    if (!placed) throw new HelpdeskCallFailed('unexpected_answer', this.request.call);
    return placed;
  }

  #age(list: StateList) {
    return this.clock.now().getTime() - list.readAtMs;
  }

  #read(): Promise<StateList> {
    // Reads that need the list at the same time share one call.
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #fetch(): Promise<StateList> {
    const { call, url, headers } = this.request;
    const { status, body } = await this.http.send({ call, method: 'GET', url, headers: headers() });
    if (!Array.isArray(body)) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    const byId = new Map<number, { name: string; typeName: string | null }>();
    for (const entry of body) {
      // Entries are read for the fields used; one without an id or a name names no state to read by.
      if (isJsonObject(entry) && isPositiveInteger(entry.id) && typeof entry.name === 'string') {
        byId.set(entry.id, { name: entry.name, typeName: typeof entry.state_type === 'string' ? entry.state_type : null });
      }
    }
    this.#list = { byId, readAtMs: this.clock.now().getTime() };
    return this.#list;
  }
}

/** The listed state and what its type's name means, or null when it is not listed or its type is not placed. */
const placedIn = (list: StateList, stateId: number): ZammadState | null => {
  const known = list.byId.get(stateId);
  const typeName = known?.typeName ?? null;
  if (!known || typeName === null || !Object.hasOwn(ZAMMAD_STATE_TYPES, typeName)) return null;
  return { name: known.name, typeName, state: ZAMMAD_STATE_TYPES[typeName]! };
};
