import type { TransactItem } from './audit-log.ts';
import type { ItemKey } from './keys.ts';

/**
 * A transaction's update of an existing item: sets each of `fields` (each attribute name through a
 * placeholder, so a reserved word such as `name` needs no care), on condition that the item exists:
 * an update alone would create an item holding only these fields. `expected` adds the values the
 * change was decided on: a concurrent change of any of them fails the condition, so what the change
 * records (a previous name, the members added) is never worked out from a copy already stale.
 */
export const setFieldsOf = (tableName: string, key: ItemKey, fields: Record<string, unknown>, expected: Record<string, unknown> = {}): TransactItem => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments = Object.entries(fields).map(([name, value], position) => {
    names[`#n${position}`] = name;
    values[`:v${position}`] = value;
    return `#n${position} = :v${position}`;
  });
  const conditions = Object.entries(expected).map(([name, value], position) => {
    names[`#e${position}`] = name;
    values[`:e${position}`] = value;
    return `#e${position} = :e${position}`;
  });
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${assignments.join(', ')}`,
      ConditionExpression: ['attribute_exists(pk)', ...conditions].join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};
