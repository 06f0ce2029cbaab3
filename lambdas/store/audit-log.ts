import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import canonicalize from 'canonicalize';
import { WriteConflict } from '#core/errors.ts';
import type { Clock } from '#core/clock.ts';
import { sha256Hex } from '#core/hashing.ts';
import type { AuditEntry, AuditEntryInput, AuditTrail } from '#core/ports.ts';
import { cancellationCodes, type Documents } from './dynamo.ts';
import { keys } from './keys.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const GENESIS_HASH = '0'.repeat(64);
const MAX_ATTEMPTS = 200;

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
  ) {}

  record(entry: AuditEntryInput): Promise<AuditEntry> {
    return this.append(entry, []);
  }

  /**
   * Appends `input` together with `writes`. Throws WriteConflict when one of `writes` failed its
   * condition (the caller re-reads and decides again); retries by itself when another writer took
   * the sequence number.
   */
  append(input: AuditEntryInput, writes: TransactItem[]): Promise<AuditEntry> {
    if (!this.options.serialiseInProcess) return this.appendWithRetry(input, writes);
    const previous = this.queues.get(input.orgId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.appendWithRetry(input, writes));
    this.queues.set(input.orgId, next);
    void next.finally(() => {
      if (this.queues.get(input.orgId) === next) this.queues.delete(input.orgId);
    }).catch(() => undefined);
    return next;
  }

  private async appendWithRetry(input: AuditEntryInput, writes: TransactItem[]): Promise<AuditEntry> {
    for (let attempt = 1; ; attempt++) {
      const head = await this.readHead(input.orgId);
      const entry = this.chain(input, head);
      try {
        const own = this.headAndEntryWrites(entry, head.n);
        await this.db.send(new TransactWriteCommand({ TransactItems: [...own, ...writes] }));
        return entry;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        const lostSequence = codes[0] !== 'None' || codes[1] !== 'None';
        const otherFailed = codes.slice(this.ownWriteCount(input)).some((code) => code === 'ConditionalCheckFailed');
        if (otherFailed && !lostSequence) throw new WriteConflict('a write condition failed', { cause: error });
        if (attempt >= MAX_ATTEMPTS) throw new Error('audit sequence contention did not settle', { cause: error });
        await backoff(attempt);
      }
    }
  }

  /** Head and entry, plus the trail copy for an entry about a request. */
  private ownWriteCount(input: AuditEntryInput) {
    return input.requestId ? 3 : 2;
  }

  private async readHead(orgId: string) {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.auditHead(orgId), ConsistentRead: true }),
    );
    return { n: (Item?.n as number | undefined) ?? 0, hash: (Item?.hash as string | undefined) ?? GENESIS_HASH };
  }

  private chain(input: AuditEntryInput, head: { n: number; hash: string }): AuditEntry {
    const unsigned = { ...input, seq: head.n + 1, occurredAt: this.clock.now().toISOString(), prevHash: head.hash };
    return { ...unsigned, hash: sha256Hex(canonicalize(unsigned) ?? '') };
  }

  private headAndEntryWrites(entry: AuditEntry, expected: number): TransactItem[] {
    const head = keys.auditHead(entry.orgId);
    return [
      {
        Update: {
          TableName: this.tableName,
          Key: head,
          UpdateExpression: 'SET n = :next, #hash = :hash',
          ConditionExpression: expected === 0 ? 'attribute_not_exists(n)' : 'n = :expected',
          ExpressionAttributeNames: { '#hash': 'hash' },
          ExpressionAttributeValues: {
            ':next': entry.seq,
            ':hash': entry.hash,
            ...(expected === 0 ? {} : { ':expected': expected }),
          },
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: { ...keys.auditEntry(entry.orgId, entry.seq), kind: 'audit', ...entry },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...(entry.requestId ? [this.trailWrite(entry, entry.requestId)] : []),
    ];
  }

  /** A copy of the entry's summary beside its request, so a request's trail is one query. */
  private trailWrite(entry: AuditEntry, requestId: string): TransactItem {
    const details = (entry.data as { details?: unknown }).details ?? {};
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...keys.trailEntry(requestId, entry.seq),
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
