import { toJSONSchema, type $ZodType } from 'zod/v4/core';
import { API_OBJECTS } from './objects.ts';

/**
 * zod 4's JSON Schema conversion (from zod/v4/core, so classic and mini schemas alike), tidied for
 * an OpenAPI 3.1 document, whose schema dialect is JSON Schema 2020-12.
 */
export type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * Drops what only repeats the rest: `int()`'s safe-integer bounds, the long pattern zod writes
 * beside `format: date-time`, the `propertyNames` of a string-keyed record, and the marks of a
 * standalone schema (`$schema`, `$id`) that have no place inside a document.
 */
export const tidy = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(tidy);
  if (typeof value !== 'object' || value === null) return value;
  const schema: JsonSchema = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$schema' || key === '$id') continue;
    schema[key] = tidy(item);
  }
  if (schema.type === 'integer') {
    if (schema.minimum === -SAFE_INTEGER) delete schema.minimum;
    if (schema.maximum === SAFE_INTEGER) delete schema.maximum;
  }
  if (schema.format === 'date-time') delete schema.pattern;
  if (isPlainStringKeys(schema.propertyNames)) delete schema.propertyNames;
  return schema;
};

const isPlainStringKeys = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 1 && (value as JsonSchema).type === 'string';

/** What a caller sends: defaults make a field optional, transforms show what they read. */
export const inputSchema = (schema: $ZodType): JsonSchema =>
  tidy(toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as JsonSchema;

/** What the service works with after parsing: a query string's digits as the integer they stand for. */
const outputSchema = (schema: $ZodType): JsonSchema =>
  tidy(toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })) as JsonSchema;

/** The response objects, each under its name, referring to one another by `#/components/schemas/<name>`. */
export const componentSchemas = (): Record<string, JsonSchema> => {
  const { schemas } = toJSONSchema(API_OBJECTS, { uri: (id) => `#/components/schemas/${id}`, metadata: API_OBJECTS });
  return tidy(schemas) as Record<string, JsonSchema>;
};

/** The `$ref` of a response object registered in API_OBJECTS. */
export const refTo = (object: $ZodType): JsonSchema => {
  const id = API_OBJECTS.get(object)?.id;
  if (!id) throw new Error('Only a named object of objects.ts can be referred to');
  return { $ref: `#/components/schemas/${id}` };
};

export interface QueryField {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

/**
 * The query parameters of a strict object schema, as a handler parses `queryStringParameters`.
 * Each is shown as the value it stands for (`limit` an integer with its bounds and default); a
 * parameter whose value a transform makes (a comma-separated list) is shown as the text sent.
 */
export const queryFields = (schema: $ZodType): QueryField[] => {
  const input = inputSchema(schema);
  const output = outputSchema(schema);
  const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
  const parsed = (output.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((input.required ?? []) as string[]);
  return Object.entries(properties).map(([name, sent]) => {
    const value = parsed[name];
    const representable = value !== undefined && Object.keys(value).some((key) => key !== 'default' && key !== 'description');
    return { name, required: required.has(name), schema: representable ? value : sent };
  });
};
