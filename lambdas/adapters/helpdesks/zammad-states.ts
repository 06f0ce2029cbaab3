import type { Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskTicketState } from '#core/helpdesk.ts';
import { isJsonObject, type HelpdeskHttp } from './helpdesk-http.ts';

/**
 * A Zammad instance's ticket states (`GET /api/v1/ticket_states`, docs.zammad.org, API, Ticket,
 * States), each with the state type that says what it means. An instance names and adds its own
 * states, but every state has one of Zammad's fixed state types, created with the same ids on every
 * install (Ticket::StateType seeds: 1 new, 2 open, 3 pending reminder, 4 pending action, 5 closed,
 * 6 merged, 7 removed); the type, never the state's name, decides what a ticket's state means here.
 */

/**
 * State types as the service sees them: new, open and both pending types wait on someone (a
 * `pending close` ticket is closed by Zammad only when its time comes), so they are open; `closed` is
 * closed; `merged` is closed too, as the inbound recipe reads it: a merged ticket ends for good and
 * lives on as another ticket, which a request would have to be linked to. Zammad has no resolved.
 * `removed` (inactive in a default install) and any type Zammad might add are not placed: the read
 * fails as `unexpected_answer`, so it never destroys.
 */
export const ZAMMAD_STATE_TYPES: Readonly<Record<number, { name: string; state: HelpdeskTicketState }>> = {
  1: { name: 'new', state: 'open' },
  2: { name: 'open', state: 'open' },
  3: { name: 'pending reminder', state: 'open' },
  4: { name: 'pending action', state: 'open' },
  5: { name: 'closed', state: 'closed' },
  6: { name: 'merged', state: 'closed' },
};

/** How long a list of states is trusted before it is read again: states change rarely, and only by an admin. */
export const ZAMMAD_STATES_FRESH_MS = 15 * 60_000;

export interface ZammadState {
  /** The instance's name for the state (`closed`, `pending close`, or one it added). */
  name: string;
  /** The state type's name (`closed`, `pending action`, ...). */
  typeName: string;
  state: HelpdeskTicketState;
}

type StateList = { byId: ReadonlyMap<number, { name: string; typeId: number }>; readAtMs: number };

const isPositiveInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * The states of one instance, read once and kept for ZAMMAD_STATES_FRESH_MS: a read of a ticket
 * costs one call, not two. A state id the kept list lacks (a state added since) reads the list again
 * at once, so a new state is known at its first ticket.
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
    if (!list || this.clock.now().getTime() - list.readAtMs >= ZAMMAD_STATES_FRESH_MS || !list.byId.has(stateId)) list = await this.#read();
    const known = list.byId.get(stateId);
    const type = known === undefined ? undefined : ZAMMAD_STATE_TYPES[known.typeId];
    if (!known || !type) throw new HelpdeskCallFailed('unexpected_answer', this.request.call);
    return { name: known.name, typeName: type.name, state: type.state };
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
    const byId = new Map<number, { name: string; typeId: number }>();
    for (const entry of body) {
      // Entries are read for the three fields used; one that lacks them names no state to read by.
      if (isJsonObject(entry) && isPositiveInteger(entry.id) && typeof entry.name === 'string' && isPositiveInteger(entry.state_type_id)) {
        byId.set(entry.id, { name: entry.name, typeId: entry.state_type_id });
      }
    }
    this.#list = { byId, readAtMs: this.clock.now().getTime() };
    return this.#list;
  }
}
