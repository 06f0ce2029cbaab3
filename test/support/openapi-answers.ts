import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { DOCUMENT_FILE } from '../../lambdas/http/openapi/files.ts';

/**
 * docs/openapi.json as a judge of answers: its operations, and for an answer to one of them the
 * list of ways it differs from what the document says (empty when it fits): a status the operation
 * lists, every header the document says that status always carries, each header present valid
 * against its schema, a media type the status lists, and a body valid against the document's own
 * JSON Schema for it (JSON Schema 2020-12, the dialect of OpenAPI 3.1), `$ref`s and all.
 */
type Json = Record<string, any>;

export interface DocumentedOperation {
  operationId: string;
  method: string;
  /** The path template, or `webhooks/<name>` for an outbound operation. */
  template: string;
  /** Where the operation sits in the document, as a JSON Pointer. */
  pointer: string;
  operation: Json;
}

export interface Answer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export const readDocument = (): Json => JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', DOCUMENT_FILE), 'utf8'));

const pointerPart = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every operation of the document: its paths', then its webhooks'. */
export const documentedOperations = (document: Json): DocumentedOperation[] => {
  const under = (section: 'paths' | 'webhooks', prefix: string) =>
    Object.entries(document[section] ?? {}).flatMap(([key, item]) =>
      Object.entries(item as Json)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({
          operationId: (operation as Json).operationId as string,
          method: method.toUpperCase(),
          template: `${prefix}${key}`,
          pointer: `#/${section}/${pointerPart(key)}/${method}`,
          operation: operation as Json,
        })),
    );
  return [...under('paths', ''), ...under('webhooks', 'webhooks/')];
};

/** The document's formats, checked as the service writes them. */
const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value)),
  uri: (value) => URL.canParse(value),
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
};

/** A header's text as its schema types it: an integer header's digits as the number. */
const headerValue = (schema: Json, text: string) => (schema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text);

export const answerJudge = (document: Json) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
  ajv.addSchema(document, 'openapi');
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  /** The schema at a pointer into the document, compiled once. */
  const validator = (pointer: string) => {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };
  const problemsAgainst = (pointer: string, value: unknown, what: string) => {
    const validate = validator(pointer);
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${what}${error.instancePath} ${error.message} (${JSON.stringify(error.params)})`);
  };
  /** A header object, its `$ref` (to components.headers) followed. */
  const resolved = (header: Json): Json => (header.$ref ? document.components.headers[(header.$ref as string).split('/').pop()!] : header);

  /** How `answer` differs from what the document says `operation` answers. */
  const problems = (operation: DocumentedOperation, answer: Answer): string[] => {
    const status = String(answer.status);
    const response: Json | undefined = operation.operation.responses?.[status];
    if (!response) return [`status ${status} is not one the operation lists (${Object.keys(operation.operation.responses ?? {}).join(', ')})`];
    const at = `${operation.pointer}/responses/${status}`;
    const found: string[] = [];
    for (const [name, declared] of Object.entries((response.headers ?? {}) as Json)) {
      const header = resolved(declared);
      const text = answer.headers[name.toLowerCase()];
      if (text === undefined) {
        if (header.required) found.push(`header ${name} is missing`);
        continue;
      }
      const schemaAt = declared.$ref ? `${declared.$ref}/schema` : `${at}/headers/${pointerPart(name)}/schema`;
      found.push(...problemsAgainst(schemaAt, headerValue(header.schema, String(text)), `header ${name}`));
    }
    const mediaType = String(answer.headers['content-type'] ?? '').split(';')[0].trim();
    if (!response.content) {
      if (answer.text !== '') found.push(`a body (${mediaType}) where the document lists none`);
      return found;
    }
    if (!(mediaType in response.content)) return [...found, `media type "${mediaType}" is not one of ${Object.keys(response.content).join(', ')}`];
    const schemaAt = `${at}/content/${pointerPart(mediaType)}/schema`;
    if (mediaType === 'application/pdf') {
      if (!answer.text.startsWith('%PDF-')) found.push('the PDF does not start with %PDF-');
      return found;
    }
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...found, `the body is not JSON: ${answer.text.slice(0, 200)}`];
    }
    return [...found, ...problemsAgainst(schemaAt, body, 'body')];
  };

  /** How a request the service sent (a webhook delivery) differs from what the outbound operation says. */
  const requestProblems = (operation: DocumentedOperation, request: { headers: Record<string, string>; body: string }): string[] => {
    const found: string[] = [];
    const parameters = (operation.operation.parameters ?? []) as Json[];
    parameters.forEach((parameter, index) => {
      if (parameter.in !== 'header') return;
      const text = request.headers[(parameter.name as string).toLowerCase()];
      if (text === undefined) {
        if (parameter.required) found.push(`header ${parameter.name} is missing`);
        return;
      }
      found.push(...problemsAgainst(`${operation.pointer}/parameters/${index}/schema`, headerValue(parameter.schema, text), `header ${parameter.name}`));
    });
    const content = operation.operation.requestBody?.content ?? {};
    const mediaType = String(request.headers['content-type'] ?? '').split(';')[0].trim();
    if (!(mediaType in content)) return [...found, `media type "${mediaType}" is not one of ${Object.keys(content).join(', ')}`];
    return [...found, ...problemsAgainst(`${operation.pointer}/requestBody/content/${pointerPart(mediaType)}/schema`, JSON.parse(request.body), 'body')];
  };

  return { problems, requestProblems };
};
