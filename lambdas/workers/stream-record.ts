import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { newId } from '#core/ids.ts';
import type { AuditEntry } from '#core/ports.ts';
import { keys } from '#store/keys.ts';
import { STREAM_VIEW_TYPE } from '#store/table.ts';

/**
 * The stream record of a new audit entry, as the table's stream (keys only) hands it to the
 * fan-out (workers/fan-out.ts): an INSERT of the entry's key (`AUDIT#<orgId>` / `SEQ#<seq>`), with
 * a sequence number made from the entry's (a failed record is reported by it). The fan-out reads
 * the entry. For the operator's re-fan-out (workers/refan.ts) and the tests; the deployed fan-out
 * gets real records from the stream.
 */
export const auditInsertRecord = (entry: AuditEntry, eventID: string = newId()): DynamoDBRecord => {
  const key = keys.auditEntry(entry.orgId, entry.seq);
  return {
    eventID,
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: marshall(key) as never,
      SequenceNumber: String(entry.seq).padStart(21, '0'),
      StreamViewType: STREAM_VIEW_TYPE,
    },
  };
};
