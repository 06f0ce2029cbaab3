import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { conflict, WriteConflict } from '#core/errors.ts';
import type { Clock } from '#core/clock.ts';
import { chainHashOf } from '#core/audit-hash.ts';
import type { AuditEntry, AuditEntryInput, AuditTrail } from '#core/ports.ts';
import { cancellationCodes, type Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { isTransientCancellation } from './transient-failure.ts';
import type { IdempotentCommits } from './idempotent-commit.ts';
import { itemFoundAt, joinedWithCheck, keyOfWrite } from './caller-standing.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/**
 * The writes that go with appended entries: a list, or a function of the entries for a write that
 * must name an entry's sequence number (it is called again when a retry takes another number).
 */
export type EntryWrites = TransactItem[] | ((entries: AuditEntry[]) => TransactItem[]);

const GENESIS_HASH = '0'.repeat(64);
const MAX_ATTEMPTS = 200;
/**
 * Tries of a transaction cancelled for transient reasons (TransactionConflict, throttling) before
 * the error goes to the caller: enough for writers racing on the head to settle, few enough that a
 * table that keeps refusing answers 503 within about a second.
 */
const MAX_TRANSIENT_ATTEMPTS = 10;

/**
 * The per-organisation audit chain. Every change appends one entry with the organisation's next
 * sequence number in the same TransactWriteItems as the change itself: the head item is updated
 * on condition `n = :expected` and the entry is put on `attribute_not_exists`, so numbers are
 * gap-free and never shared, and each entry carries the previous entry's hash.
 *
 * Writers in one process queue per organisation (a Lambda container serves one call at a time, so
 * this only matters locally); across processes the conditions decide and the loser retries.
 */
export class AuditLog implements AuditTrail {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly options: { serialiseInProcess: boolean } = { serialiseInProcess: true },
    /** The calling invocation's prepared replay, stored in the same transaction as its change. */
    private readonly commits?: Pick<IdempotentCommits, 'write' | 'written' | 'refused'> & Partial<Pick<IdempotentCommits, 'callerStanding'>>,
  ) {}

  record(entry: AuditEntryInput): Promise<AuditEntry> {
    return this.append(entry, []);
  }

  /**
   * Appends `input` together with `writes`. Throws WriteConflict when one of `writes` failed its
   * condition (the caller re-reads and decides again); retries by itself when another writer took
   * the sequence number.
   *
   * Given several inputs (all of one organisation), appends them in that order in the same
   * transaction: consecutive sequence numbers, each chained to the one before, the head moved
   * once, to the last. Answers the entries in the same shape: one entry for one input, an array
   * for an array.
   */
  append(input: AuditEntryInput, writes: EntryWrites): Promise<AuditEntry>;
  append(inputs: AuditEntryInput[], writes: EntryWrites): Promise<AuditEntry[]>;
  append(input: AuditEntryInput | AuditEntryInput[], writes: EntryWrites): Promise<AuditEntry | AuditEntry[]> {
    const inputs = Array.isArray(input) ? input : [input];
    if (inputs.length === 0) return Promise.reject(new Error('nothing to append'));
    const orgId = inputs[0].orgId;
    if (inputs.some((entry) => entry.orgId !== orgId)) return Promise.reject(new Error('entries of one transaction must share an organisation'));
    const run = () => this.appendWithRetry(inputs, writes);
    let next: Promise<AuditEntry[]>;
    if (!this.options.serialiseInProcess) next = run();
    else {
      const previous = this.queues.get(orgId) ?? Promise.resolve();
      next = previous.catch(() => undefined).then(run);
      this.queues.set(orgId, next);
      void next.finally(() => {
        if (this.queues.get(orgId) === next) this.queues.delete(orgId);
      }).catch(() => undefined);
    }
    return Array.isArray(input) ? next : next.then((entries) => entries[0]);
  }

  private async appendWithRetry(inputs: AuditEntryInput[], writesFor: EntryWrites): Promise<AuditEntry[]> {
    let transientFailures = 0;
    for (let attempt = 1; ; attempt++) {
      const head = await this.readHead(inputs[0].orgId);
      const entries: AuditEntry[] = [];
      let previous = head;
      // One time for the whole transaction: its entries happened together.
      const occurredAt = this.clock.now().toISOString();
      for (const input of inputs) {
        const entry = this.chain(input, previous, occurredAt);
        entries.push(entry);
        previous = { n: entry.seq, hash: entry.hash };
      }
      const own = this.headAndEntryWrites(entries, head.n);
      const writes = typeof writesFor === 'function' ? writesFor(entries) : writesFor;
      const checked = this.withCallerCheck(writes);
      const replay = this.commits?.write() ?? null;
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: [...own, ...checked.writes, ...(replay ? [replay] : [])] }));
        if (replay) this.commits?.written();
        return entries;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        // Cancelled only because another transaction held an item, or throttled: worth a few quick
        // tries, not the long contention budget; then the caller answers 503 (http/unavailable.ts).
        if (isTransientCancellation(codes)) {
          if (++transientFailures >= MAX_TRANSIENT_ATTEMPTS) throw error;
          await backoff(attempt);
          continue;
        }
        // The caller's key was revoked, or the member disabled, while the call was under way.
        if (checked.standing && codes[own.length + checked.at] === 'ConditionalCheckFailed') {
          const { standing, joined } = checked;
          const found = itemFoundAt(error, own.length + checked.at);
          if (!joined || !standing.standsIn(found)) throw standing.refusal(found);
        }
        // The replay's record comes last: failing, its claim lapsed and another call holds the key now.
        if (replay && codes[codes.length - 1] === 'ConditionalCheckFailed') throw claimLost(error);
        // The head and the entry puts come first: one of them failing means another writer took the number.
        const lostSequence = codes.slice(0, 1 + entries.length).some((code) => code !== 'None');
        const otherFailed = codes.slice(own.length).some((code) => code === 'ConditionalCheckFailed');
        if (otherFailed && !lostSequence) {
          if (replay) this.commits?.refused();
          throw new WriteConflict('a write condition failed', { cause: error });
        }
        if (attempt >= MAX_ATTEMPTS) throw new Error('audit sequence contention did not settle', { cause: error });
        await backoff(attempt);
      }
    }
  }

  /**
   * The change's writes with the calling invocation's check of its caller: after them (just before
   * the replay), or, when the change already writes or checks the caller's own item, joined to that
   * write's condition (a transaction may name an item once). `at` is where the check is.
   */
  private withCallerCheck(writes: TransactItem[]) {
    const standing = this.commits?.callerStanding?.() ?? null;
    if (!standing) return { writes, standing: null, at: -1, joined: false };
    const caller = keyOfWrite(standing.check);
    const at = writes.findIndex((write) => keyOfWrite(write) === caller);
    if (at < 0) return { writes: [...writes, standing.check], standing, at: writes.length, joined: false };
    return { writes: writes.map((write, index) => (index === at ? joinedWithCheck(write, standing) : write)), standing, at, joined: true };
  }

  private async readHead(orgId: string) {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.auditHead(orgId), ConsistentRead: true }),
    );
    return { n: (Item?.n as number | undefined) ?? 0, hash: (Item?.hash as string | undefined) ?? GENESIS_HASH };
  }

  private chain(input: AuditEntryInput, head: { n: number; hash: string }, occurredAt: string): AuditEntry {
    const unsigned = { ...input, seq: head.n + 1, occurredAt, prevHash: head.hash };
    return { ...unsigned, hash: chainHashOf(unsigned) };
  }

  /** The head (moved once, to the last entry), then each entry, then the trail copies of entries about a request. */
  private headAndEntryWrites(entries: AuditEntry[], expected: number): TransactItem[] {
    const last = entries[entries.length - 1];
    const head = keys.auditHead(last.orgId);
    return [
      {
        Update: {
          TableName: this.tableName,
          Key: head,
          UpdateExpression: 'SET n = :next, #hash = :hash',
          ConditionExpression: expected === 0 ? 'attribute_not_exists(n)' : 'n = :expected',
          ExpressionAttributeNames: { '#hash': 'hash' },
          ExpressionAttributeValues: {
            ':next': last.seq,
            ':hash': last.hash,
            ...(expected === 0 ? {} : { ':expected': expected }),
          },
        },
      },
      ...entries.map(
        (entry): TransactItem => ({
          Put: {
            TableName: this.tableName,
            Item: { ...keys.auditEntry(entry.orgId, entry.seq), kind: 'audit', ...entry },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        }),
      ),
      ...entries.flatMap((entry) => {
        if (entry.requestId) return [this.trailWrite(entry, keys.trailEntry(entry.requestId, entry.seq))];
        if (entry.shareId) return [this.trailWrite(entry, keys.shareTrailEntry(entry.shareId, entry.seq))];
        return [];
      }),
    ];
  }

  /** A copy of the entry's summary beside its request or share, so a record's trail is one query. */
  private trailWrite(entry: AuditEntry, key: { pk: string; sk: string }): TransactItem {
    const details = (entry.data as { details?: unknown }).details ?? {};
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...key,
          kind: 'audit_trail',
          seq: entry.seq,
          type: entry.type,
          occurredAt: entry.occurredAt,
          actor: { type: entry.actor.type, label: entry.actor.label },
          details,
        },
      },
    };
  }
}

/** Full-jitter exponential backoff, capped, so racing writers spread out. */
const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** Math.min(attempt, 7))));

/** 409, as for a concurrent duplicate: the call took so long that its key went to a retry, which now decides. */
const claimLost = (cause: unknown) =>
  Object.assign(conflict('A request with this Idempotency-Key is being processed by a later attempt.'), { cause });
