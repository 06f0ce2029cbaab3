import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRoute, ROUTES } from '../../lambdas/http/routes.ts';
import { createHandler, defaultAssetSource, fileFor, folderAssets, type AssetSource } from '../../lambdas/http/static/serve.ts';
import { buildWebAssets } from '../../web/build.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const event = (path: string, method = 'GET'): APIGatewayProxyEventV2 => ({
  version: '2.0',
  routeKey: '$default',
  rawPath: path,
  rawQueryString: '',
  headers: {},
  requestContext: {
    accountId: 'test',
    apiId: 'test',
    domainName: 'localhost',
    domainPrefix: 'localhost',
    http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
    requestId: 'r',
    routeKey: '$default',
    stage: '$default',
    time: '',
    timeEpoch: 0,
  },
  isBase64Encoded: false,
});

/** Dependencies whose every property throws when touched: proves the pages read no table. */
const explodingDeps = () =>
  new Proxy({ assets: builtSource } as Record<string | symbol, unknown>, {
    get: (target, name) => {
      if (name === 'assets') return target.assets;
      throw new Error(`the static handler touched deps.${String(name)}`);
    },
  });

/** A db whose every call throws. */
const throwingDb = new Proxy({}, { get: () => { throw new Error('table access'); } });

let built: Map<string, { contentType: string; body: string }>;
const builtSource: AssetSource = async () => built;

beforeAll(async () => {
  built = await buildWebAssets();
}, 60_000);

const expectSecurityHeaders = (headers: Record<string, string> | undefined) => {
  expect(headers).toMatchObject({
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': CSP,
  });
};

describe('static pages handler', () => {
  const serve = createHandler({ assets: builtSource });

  it.each([
    ['/r/abcDEF123_-token', 'subject.html', 'text/html; charset=utf-8'],
    ['/r/another-token', 'subject.html', 'text/html; charset=utf-8'],
    ['/app', 'app.html', 'text/html; charset=utf-8'],
    ['/app/sign-in', 'app.html', 'text/html; charset=utf-8'],
    ['/app/requests/01hzzzzzzzzzzzzzzzzzzzzre1', 'app.html', 'text/html; charset=utf-8'],
    ['/assets/subject.js', 'subject.js', 'text/javascript; charset=utf-8'],
    ['/assets/app.js', 'app.js', 'text/javascript; charset=utf-8'],
    ['/assets/styles.css', 'styles.css', 'text/css; charset=utf-8'],
  ])('GET %s serves %s with the page headers', async (path, file, contentType) => {
    const result = await serve(event(path));
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['Content-Type']).toBe(contentType);
    expectSecurityHeaders(result.headers);
    expect(result.body).toBe(built.get(file)!.body);
  });

  it('serves the same HTML for any token: the token is never echoed into the page', async () => {
    const a = await serve(event('/r/token-one-aaaaaaaaaaaa'));
    const b = await serve(event('/r/token-two-bbbbbbbbbbbb'));
    expect(a.body).toBe(b.body);
    expect(a.body).not.toContain('token-one');
  });

  it('answers /r/<token> with no table access at all', async () => {
    // The whole AppDeps shape, as the local gateway passes it, with a db whose every call throws.
    const withDb = createHandler({ assets: builtSource, db: throwingDb, requests: throwingDb, audit: throwingDb } as never);
    const result = await withDb(event('/r/some-link-token'));
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain('/assets/subject.js');
    // Stricter: dependencies of which any member but `assets` throws when merely read.
    const strict = createHandler(explodingDeps() as never);
    expect((await strict(event('/r/some-link-token'))).statusCode).toBe(200);
  });

  it.each(['/assets/unknown.js', '/assets/subject.html', '/assets/..%2fserve.ts', '/assets/app.js.map', '/r/a/b', '/app/api/unknown', '/nowhere'])(
    'GET %s is a 404 with the error body and the same headers',
    async (path) => {
      const result = await serve(event(path));
      expect(result.statusCode).toBe(404);
      expect(JSON.parse(result.body!)).toEqual({ message: 'No such page.', code: 'not_found' });
      expectSecurityHeaders(result.headers);
    },
  );

  it('serves nothing for another method', async () => {
    expect((await serve(event('/app', 'POST'))).statusCode).toBe(404);
  });

  it('a failing build is a plain 500 with no detail, retried on the next call', async () => {
    let calls = 0;
    const flaky = createHandler({
      assets: async () => {
        calls++;
        if (calls === 1) throw new Error('esbuild exploded at /secret/path');
        return built;
      },
    });
    const first = await flaky(event('/app'));
    expect(first.statusCode).toBe(500);
    expect(first.body).not.toContain('secret');
    expect((await flaky(event('/app'))).statusCode).toBe(200);
  });
});

describe('asset sources', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'web-assets-'));
    for (const [name, asset] of built) writeFileSync(join(folder, name), asset.body);
    writeFileSync(join(folder, 'notes.txt'), 'not served');
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('reads a built folder (the deployed layout) and serves it', async () => {
    const serve = createHandler({ assets: folderAssets(folder) });
    const page = await serve(event('/r/tok'));
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(built.get('subject.html')!.body);
    expect((await serve(event('/assets/app.js'))).body).toBe(built.get('app.js')!.body);
    expect((await serve(event('/assets/notes.txt'))).statusCode).toBe(404);
  });

  it('uses WEB_ASSETS_DIR, then <task root>/assets when deployed, else builds in memory', async () => {
    const fromEnv = await defaultAssetSource({ WEB_ASSETS_DIR: folder })();
    expect(fromEnv.get('app.html')?.body).toBe(built.get('app.html')!.body);
    await expect(defaultAssetSource({ LAMBDA_TASK_ROOT: join(folder, 'nowhere') })()).rejects.toThrow();
    const inMemory = await defaultAssetSource({})();
    expect([...inMemory.keys()].sort()).toEqual(['app.html', 'app.js', 'share.html', 'share.js', 'styles.css', 'subject.html', 'subject.js']);
  }, 60_000);
});

describe('page routes', () => {
  it('are public rows of the one static entry', () => {
    for (const route of [ROUTES.pageSubject, ROUTES.pageApp, ROUTES.pageAppDeep, ROUTES.assets]) {
      expect(route).toMatchObject({ method: 'GET', scope: 'public', entry: 'lambdas/http/static/serve.ts' });
    }
  });

  it('route the page paths, with the member endpoints still winning over /app/{path+}', () => {
    expect(matchRoute('GET', '/r/abc')).toMatchObject({ route: ROUTES.pageSubject, pathParameters: { token: 'abc' } });
    expect(matchRoute('GET', '/app')).toMatchObject({ route: ROUTES.pageApp });
    expect(matchRoute('GET', '/app/requests/x')).toMatchObject({ route: ROUTES.pageAppDeep });
    expect(matchRoute('GET', '/assets/app.js')).toMatchObject({ route: ROUTES.assets, pathParameters: { file: 'app.js' } });
    expect(matchRoute('GET', '/app/api/me')).toMatchObject({ route: { path: '/app/api/me' } });
  });

  it('maps paths to files', () => {
    expect(fileFor('/r/x')).toBe('subject.html');
    expect(fileFor('/app/key')).toBe('app.html');
    expect(fileFor('/assets/styles.css')).toBe('styles.css');
    expect(fileFor('/assets/styles.CSS')).toBeNull();
    expect(fileFor('/app/api/me')).toBeNull();
  });
});
