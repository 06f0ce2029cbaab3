import { issuedAfterLastDisable } from '#core/model.ts';
import type { TransactItem } from './audit-log.ts';
import { keys } from './keys.ts';
import { joinedWithCondition } from './write-conditions.ts';

/** A signed-in member's call: who acts, since when their session holds, and (when given) in which role. */
export interface ActingMember {
  orgId: string;
  memberId: string;
  sessionCreatedAt: string;
  role?: string;
}

/** A check of the caller (its API key not revoked, the member still active) put into each change's transaction. */
export interface CallerStanding {
  check: TransactItem;
  /** Whether the caller's item, as the table held it, still lets them act (the check's condition, read in code). */
  standsIn(item: Record<string, unknown> | undefined): boolean;
  /** The error the call answers when the check failed; `found` is the caller's item as the failure returned it, when it did. */
  refusal: (found?: Record<string, unknown>) => Error;
}

/**
 * The member may still act: still active, and not disabled since the session they act in began
 * (each disable moves sessionsValidFrom on), and, with `role`, still in the role the call was let
 * in with. A change carrying this check loses to a disable, or a change of the caller's role, that
 * commits first: what only an owner or admin may do is never done by someone who no longer is
 * one. Its placeholders are its own, so it can be joined to a write's condition. `roleChanged`
 * is the answer when the member still stands but in another role (else `refusal`).
 */
export const memberStanding = (
  tableName: string,
  { orgId, memberId, sessionCreatedAt, role }: ActingMember,
  refusal: () => Error,
  roleChanged: () => Error = refusal,
): CallerStanding => {
  const signedIn = (item: Record<string, unknown> | undefined) =>
    item?.active === true && issuedAfterLastDisable(item as { sessionsValidFrom?: string }, sessionCreatedAt);
  const sameRole = (item: Record<string, unknown> | undefined) => role === undefined || item?.role === role;
  return {
    check: {
      ConditionCheck: {
        TableName: tableName,
        Key: keys.member(orgId, memberId),
        ConditionExpression: `#callerActive = :callerActive AND (attribute_not_exists(#callerValidFrom) OR #callerValidFrom <= :callerSessionCreatedAt)${role === undefined ? '' : ' AND #callerRole = :callerRole'}`,
        ExpressionAttributeNames: { '#callerActive': 'active', '#callerValidFrom': 'sessionsValidFrom', ...(role === undefined ? {} : { '#callerRole': 'role' }) },
        ExpressionAttributeValues: { ':callerActive': true, ':callerSessionCreatedAt': sessionCreatedAt, ...(role === undefined ? {} : { ':callerRole': role }) },
        // The member's item comes back with a failure: it tells a disable from a change of role.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    standsIn: (item) => signedIn(item) && sameRole(item),
    refusal: (found) => (signedIn(found) && !sameRole(found) ? roleChanged() : refusal()),
  };
};

/** The API key is still there and not revoked: each change the call makes commits only then (a revoke that lands first wins). */
export const apiKeyStanding = (tableName: string, hash: string, refusal: () => Error): CallerStanding => ({
  check: {
    ConditionCheck: {
      TableName: tableName,
      Key: keys.apiKey(hash),
      ConditionExpression: 'attribute_exists(pk) AND revokedAt = :callerNotRevoked',
      ExpressionAttributeValues: { ':callerNotRevoked': null },
    },
  },
  standsIn: (item) => item !== undefined && item.revokedAt === null,
  refusal,
});

/** The (pk, sk) a transaction item writes or checks. */
export const keyOfWrite = (item: TransactItem) => {
  const key = item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key;
  return key ? `${String(key.pk)}\u0000${String(key.sk)}` : null;
};

/**
 * `write`, which names the caller's own item, on condition that the caller still stands too: a
 * transaction may name an item once, so the check goes into that write's condition. When the
 * write fails, the item as it was comes back with the failure, to tell which condition failed.
 */
export const joinedWithCheck = (write: TransactItem, standing: CallerStanding): TransactItem => {
  const joined = joinedWithCondition(write, standing.check);
  const [kind, operation] = Object.entries(joined)[0]!;
  return { [kind]: { ...operation, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } } as TransactItem;
};

/** The item a cancelled transaction's write at `index` found, when the failure carries it. */
export const itemFoundAt = (error: unknown, index: number): Record<string, unknown> | undefined => {
  const item = (error as { CancellationReasons?: Array<{ Item?: Record<string, unknown> }> }).CancellationReasons?.[index]?.Item;
  if (!item) return undefined;
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, scalarOf(value)]));
};

/**
 * An attribute of an exception's item as JavaScript: the document client hands such items over as
 * the table holds them (`{S: ...}`, `{BOOL: ...}`, `{NULL: true}`), and the standing checks read
 * only top-level strings, booleans and nulls. Read here rather than with util-dynamodb, which the
 * function bundles would otherwise carry beside the document client. Anything else is left as is.
 */
const scalarOf = (value: unknown): unknown => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const attribute = value as { S?: string; BOOL?: boolean; NULL?: boolean; N?: string };
  if (Object.keys(attribute).length !== 1) return value;
  if (typeof attribute.S === 'string') return attribute.S;
  if (typeof attribute.BOOL === 'boolean') return attribute.BOOL;
  if (attribute.NULL === true) return null;
  if (typeof attribute.N === 'string') return Number(attribute.N);
  return value;
};
