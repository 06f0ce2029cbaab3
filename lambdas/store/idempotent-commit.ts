import { AsyncLocalStorage } from 'node:async_hooks';
import type { TransactItem } from './audit-log.ts';
import type { StoredResponse } from './idempotency.ts';
import type { ItemKey } from './keys.ts';
import type { CallerStanding } from './caller-standing.ts';

/** The Idempotency-Key record a call claimed, and the token that says the claim is still its own. */
export interface Claim {
  key: ItemKey;
  token: string;
}

interface CallState {
  claim?: Claim;
  /** The answer to replay should the change commit; null once written with it. */
  replay?: StoredResponse | null;
  /** What must still hold of the caller when a change commits, and the error when it no longer does. */
  standing?: CallerStanding;
}

/**
 * Stores a call's replay in the same transaction as its change.
 *
 * Without it the answer to replay is written after the change, so a change the table applied
 * whose every answer was lost (the caller got a 503) left the key released, and the retry made
 * the change a second time. An endpoint prepares its answer before it commits (it knows it by
 * then: ids, view, secrets) and the audit log puts the record, done with that answer, into
 * the change's transaction, on condition that the claim is still this call's. The change and its
 * replay are then one fact: a retry replays whatever happened to the first call's answer.
 *
 * Held per invocation (`scope`); outside one, or with nothing prepared, nothing is added.
 */
export class IdempotentCommits {
  private readonly calls = new AsyncLocalStorage<CallState>();

  constructor(private readonly tableName: string) {}

  scope<T>(call: () => T): T {
    return this.calls.run({}, call);
  }

  /** The idempotency middleware claimed a key for this call. */
  claimed(claim: Claim) {
    const state = this.calls.getStore();
    if (state) state.claim = claim;
  }

  /**
   * The caller was let in: each change this call makes commits only while that still holds, so a
   * key revoked while the call is under way stops it as it stops the key's next call.
   */
  callerMustStand(standing: CallerStanding) {
    const state = this.calls.getStore();
    if (state) state.standing = standing;
  }

  /** The caller's check for this call's transactions, or null outside a call or with none held. */
  callerStanding(): CallerStanding | null {
    return this.calls.getStore()?.standing ?? null;
  }

  /** The endpoint's answer, secrets already nulled, to be stored with the change. */
  prepare(replay: StoredResponse) {
    const state = this.calls.getStore();
    if (state?.claim && state.replay !== null) state.replay = replay;
  }

  /** The write that stores the prepared replay in the change's transaction, or null when none is pending. */
  write(): TransactItem | null {
    const state = this.calls.getStore();
    if (!state?.claim || !state.replay) return null;
    return {
      Update: {
        TableName: this.tableName,
        Key: state.claim.key,
        UpdateExpression: 'SET #status = :done, #response = :response REMOVE lockedUntil',
        ConditionExpression: '#status = :inProgress AND claim = :claim',
        ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
        ExpressionAttributeValues: { ':done': 'done', ':response': state.replay, ':inProgress': 'in_progress', ':claim': state.claim.token },
      },
    };
  }

  /**
   * The change the replay was prepared for was refused (a condition of its own failed): the replay
   * goes with it, so a later transaction of the call (an expiry met on the way, another attempt
   * that prepares its own) never stores an answer for a change that did not happen.
   */
  refused() {
    const state = this.calls.getStore();
    if (state?.replay) state.replay = undefined;
  }

  /** The change committed with its replay: later transactions of the call carry nothing more. */
  written() {
    const state = this.calls.getStore();
    if (state?.replay) state.replay = null;
  }
}
