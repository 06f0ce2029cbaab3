import type { TransactItem } from './audit-log.ts';
import type { ItemKey } from './keys.ts';

/**
 * A transaction's update of an existing item: sets each of `fields` (each attribute name through a
 * placeholder, so a reserved word such as `name` needs no care), on condition that the item exists:
 * an update alone would create an item holding only these fields.
 */
export const setFieldsOf = (tableName: string, key: ItemKey, fields: Record<string, unknown>): TransactItem => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments = Object.entries(fields).map(([name, value], position) => {
    names[`#n${position}`] = name;
    values[`:v${position}`] = value;
    return `#n${position} = :v${position}`;
  });
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${assignments.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};
