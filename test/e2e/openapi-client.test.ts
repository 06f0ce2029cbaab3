import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOrphanedDynamo } from '../../lambdas/local/orphaned-dynamo.ts';
import { DOCUMENT_FILE, TYPES_FILE, typesText } from '../../lambdas/http/openapi/files.ts';
import { errorBody, requestList } from '../../lambdas/http/openapi/objects.ts';
import { createAndReadBack, handoffClient } from '../../docs/examples/typed-client.ts';
import { startLocalProcess, stopProcess, type LocalProcess } from '../support/local-process.ts';
import { expectCreationResult, expectMatches, expectRequest } from '../support/shapes.ts';

/**
 * The document as a user meets it: served by the started service (bin/local.ts, what `npm start`
 * runs) at GET /v1/openapi.json without a key, turned into types by openapi-typescript, and a
 * client made of those types with openapi-fetch (docs/examples/typed-client.ts) that type-checks
 * and creates a request with an API key, then reads it back. Every operation's every answer is
 * checked against the document in openapi-every-operation.test.ts.
 */
const root = resolve(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'handoff-openapi-'));
const running: ChildProcess[] = [];
let service: LocalProcess;
let origin: string;

beforeAll(async () => {
  service = await startLocalProcess(dataDir, running);
  origin = new URL(service.baseUrl).origin;
}, 120_000);

afterAll(async () => {
  for (const child of running) await stopProcess(child, 'SIGINT');
  // A run that failed midway may have left its DynamoDB Local.
  await stopOrphanedDynamo(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The compiler options of tsconfig.json that matter to a module and its imports. */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  allowImportingTsExtensions: true,
  skipLibCheck: true,
  types: ['node'],
};

/** The previous check's program: the next one reuses its unchanged files (openapi-fetch's types, the document's). */
let lastProgram: ts.Program | undefined;

/** tsc's diagnostics for the files, with `virtual` files (path to text) beside the real ones. */
const typeErrors = (files: string[], virtual: Record<string, string> = {}) => {
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name in virtual ? ts.createSourceFile(name, virtual[name], language) : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name in virtual || fileExists.call(host, name);
  host.readFile = (name) => virtual[name] ?? readFile.call(host, name);
  const program = ts.createProgram([...files, ...Object.keys(virtual)], COMPILER_OPTIONS, host, lastProgram);
  lastProgram = program;
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
};

const EXAMPLE = join(root, 'docs/examples/typed-client.ts');
/** Beside the example: calls the API refuses, which the generated types must refuse too. */
const REFUSALS = join(root, 'docs/examples/refusals.ts');
const refusals = (expectError: boolean) => `
import { handoffClient } from './typed-client.ts';
const client = handoffClient('http://localhost:3000', 'key');
${expectError ? '// @ts-expect-error subject_name is required' : ''}
void client.POST('/v1/requests', { body: { preset: 'standard' } });
// @ts-expect-error no such path
void client.GET('/v1/nothing');
// @ts-expect-error limit is a number
void client.GET('/v1/requests', { params: { query: { limit: 'ten' } } });
// @ts-expect-error status is a request status
void client.GET('/v1/requests', { params: { query: { status: 'open' } } });
// @ts-expect-error an unknown body field
void client.POST('/v1/webhooks', { body: { url: 'https://example.com/hook', events: ['request.created'], secret: 'x' } });
export {};
`;

describe('GET /v1/openapi.json and a client generated from it', () => {
  it('serves the committed document without a key, cacheable, as JSON', async () => {
    const answer = await fetch(`${origin}/v1/openapi.json`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await answer.json()).toEqual(JSON.parse(readFileSync(join(root, DOCUMENT_FILE), 'utf8')));
  });

  it('creates a request with an API key and reads it back with GET', async () => {
    const client = handoffClient(origin, service.key);
    const { created, read } = await createAndReadBack(client, 'Jane Doe', 'standard');
    expectCreationResult(created);
    expect(created.request.subject.name).toBe('Jane Doe');
    expectRequest(read);
    expect(read).toEqual(created.request);

    // Query parameters go as the document types them, and the list answers as it describes.
    const listed = await client.GET('/v1/requests', { params: { query: { status: 'pending', limit: 100 } } });
    expect(listed.response.status).toBe(200);
    expectMatches(requestList, listed.data, 'list');
    expect(listed.data!.data.map((request) => request.id)).toContain(created.request.id);

    // Errors come typed as the document's error body.
    const missing = await client.GET('/v1/requests/{id}', { params: { path: { id: '0'.repeat(26) } } });
    expect(missing.response.status).toBe(404);
    expectMatches(errorBody, missing.error, 'error');
    expect(missing.error!.code).toBe('not_found');

    const unkeyed = await handoffClient(origin, 'chs_live_' + 'x'.repeat(43)).GET('/v1/ping');
    expect(unkeyed.response.status).toBe(401);
    expect(unkeyed.error!.code).toBe('unauthenticated');
    expect(unkeyed.response.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
  });

  // Last: the compiler holds the event loop for a while, and the connections the calls above kept
  // alive meanwhile time out on the server's side.
  it('gives, through openapi-typescript, the committed client types, which type-check the example client and refuse what the API refuses', async () => {
    const served = await (await fetch(`${origin}/v1/openapi.json`)).json();
    expect(await typesText(served), `${TYPES_FILE} is not made from the served document: run \`npm run openapi\``).toBe(
      readFileSync(join(root, TYPES_FILE), 'utf8'),
    );
    expect(typeErrors([EXAMPLE], { [REFUSALS]: refusals(true) })).toEqual([]);
    // Without its expect-error mark, the first refusal is a type error: the check can fail.
    const unmarked = typeErrors([EXAMPLE], { [REFUSALS]: refusals(false) });
    expect(unmarked).toHaveLength(1);
    expect(unmarked[0]).toContain('subject_name');
  }, 240_000);
});
