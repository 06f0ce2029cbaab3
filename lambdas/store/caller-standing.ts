import type { TransactItem } from './audit-log.ts';
import { keys } from './keys.ts';

/** A signed-in member's call: who acts, and since when their session holds. */
export interface ActingMember {
  orgId: string;
  memberId: string;
  sessionCreatedAt: string;
}

/**
 * The member may still act: still active, and not disabled since the session they act in began
 * (each disable moves sessionsValidFrom on). A change carrying this check loses to a disable that
 * commits first.
 */
export const memberStandingCheck = (tableName: string, { orgId, memberId, sessionCreatedAt }: ActingMember): TransactItem => ({
  ConditionCheck: {
    TableName: tableName,
    Key: keys.member(orgId, memberId),
    ConditionExpression: '#active = :active AND (attribute_not_exists(#validFrom) OR #validFrom <= :sessionCreatedAt)',
    ExpressionAttributeNames: { '#active': 'active', '#validFrom': 'sessionsValidFrom' },
    ExpressionAttributeValues: { ':active': true, ':sessionCreatedAt': sessionCreatedAt },
  },
});

/** The (pk, sk) a transaction item writes or checks. */
export const keyOfWrite = (item: TransactItem) => {
  const key = item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key;
  return key ? `${String(key.pk)}\u0000${String(key.sk)}` : null;
};
