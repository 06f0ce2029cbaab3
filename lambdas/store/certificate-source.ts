import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { entriesMissing } from '#core/errors.ts';
import type { AuditEntry, CertificateSource } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { entryOfItem } from './chain-read.ts';
import { keys } from './keys.ts';
import { queryPrefix } from './query-prefix.ts';

/** BatchGetItem takes at most 100 keys. */
const BATCH = 100;

/**
 * What a custody certificate is built from: the audit chain alone. A record's trail copies (beside
 * the request or share) name the sequence numbers; the entries themselves are read whole from the
 * organisation's chain, exactly as they were hashed.
 */
export class DynamoCertificateSource implements CertificateSource {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  entriesOfRequest(orgId: string, requestId: string) {
    return this.entriesUnder(orgId, keys.request(requestId).pk);
  }

  entriesOfShare(orgId: string, shareId: string) {
    return this.entriesUnder(orgId, keys.share(shareId).pk);
  }

  /**
   * The chain entries whose trail copies sit in partition `recordPk`, ascending. An entry the trail
   * names that the chain no longer holds (deleted from the table) fails the call: a certificate
   * carries its record's entries alone, so one left out would leave no trace a verifier could see.
   */
  private async entriesUnder(orgId: string, recordPk: string): Promise<AuditEntry[]> {
    const trail = await queryPrefix(this.db, this.tableName, recordPk, keys.trailPrefix, { consistent: true });
    const seqs = trail.map((item) => item.seq as number);
    const entries: AuditEntry[] = [];
    for (let start = 0; start < seqs.length; start += BATCH) {
      let wanted: Array<Record<string, unknown>> = seqs.slice(start, start + BATCH).map((seq) => keys.auditEntry(orgId, seq));
      // Unprocessed keys are retried until none remain (throttling can leave some behind).
      for (let attempt = 0; wanted.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
        const answer = await this.db.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: wanted, ConsistentRead: true } } }),
        );
        for (const item of answer.Responses?.[this.tableName] ?? []) entries.push(entryOfItem(item));
        wanted = (answer.UnprocessedKeys?.[this.tableName]?.Keys as Array<Record<string, unknown>> | undefined) ?? [];
      }
    }
    const found = new Set(entries.map((entry) => entry.seq));
    const missing = seqs.filter((seq) => !found.has(seq));
    if (missing.length > 0) throw entriesMissing(missing);
    return entries.sort((a, b) => a.seq - b.seq);
  }

  /** The organisation's chain head: the last sequence number and its hash. */
  async head(orgId: string): Promise<{ seq: number; hash: string }> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.auditHead(orgId), ConsistentRead: true }));
    return { seq: (Item?.n as number | undefined) ?? 0, hash: (Item?.hash as string | undefined) ?? '0'.repeat(64) };
  }
}
