import { readdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { notFound } from '#core/errors.ts';
import type { AppDeps } from '../../app-deps.ts';
import { errorResponse, TRANSPORT_HEADERS } from '../responses.ts';
import type { ApiEvent, ApiResult } from '../types.ts';

/**
 * The pages and their assets (docs/web-api.md, "Pages"): GET /r/{token} answers the subject's
 * page, GET /app and /app/{path+} the member application, GET /assets/{file} a script or style.
 *
 * The same HTML whatever the token: loading a page reads nothing and changes nothing, so an email
 * scanner that fetches a link marks nothing opened (the page's script does that). No table, no
 * secret, no log line with the path.
 */
export interface StaticAsset {
  contentType: string;
  body: string;
}

/** Where the built files come from: file name (`subject.html`, `app.js`, …) to its content. */
export type AssetSource = () => Promise<ReadonlyMap<string, StaticAsset>>;

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  ...TRANSPORT_HEADERS,
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const contentTypeOf = (name: string) => CONTENT_TYPES[name.slice(name.lastIndexOf('.'))];

/** Reads the built files of a folder (written by `npx tsx web/build.ts <folder>`) once. */
export const folderAssets = (folder: string): AssetSource => {
  let loaded: Promise<Map<string, StaticAsset>> | undefined;
  return () =>
    (loaded ??= (async () => {
      const assets = new Map<string, StaticAsset>();
      for (const name of await readdir(folder)) {
        const contentType = contentTypeOf(name);
        if (contentType) assets.set(name, { contentType, body: await readFile(join(folder, name), 'utf8') });
      }
      return assets;
    })());
};

/**
 * Builds the assets in memory with esbuild on first use (local runs and tests). The builder is
 * imported by a computed path, so the deployed function's bundle never includes esbuild.
 */
export const inMemoryAssets = (): AssetSource => {
  let built: Promise<ReadonlyMap<string, StaticAsset>> | undefined;
  return () => {
    built ??= (async () => {
      const builder = resolve(dirname(fileURLToPath(import.meta.url)), '../../../web/build.ts');
      const module = (await import(pathToFileURL(builder).href)) as { buildWebAssets(): Promise<Map<string, StaticAsset>> };
      return module.buildWebAssets();
    })();
    built.catch(() => (built = undefined)); // a failed build is retried on the next call
    return built;
  };
};

/**
 * Deployed, the bundling copies the built files into `assets/` beside the handler (the function's
 * task root); `WEB_ASSETS_DIR` names another folder. Anywhere else they are built in memory.
 */
export const defaultAssetSource = (env: NodeJS.ProcessEnv = process.env): AssetSource => {
  if (env.WEB_ASSETS_DIR) {
    const base = env.LAMBDA_TASK_ROOT ?? process.cwd();
    return folderAssets(isAbsolute(env.WEB_ASSETS_DIR) ? env.WEB_ASSETS_DIR : resolve(base, env.WEB_ASSETS_DIR));
  }
  if (env.LAMBDA_TASK_ROOT) return folderAssets(join(env.LAMBDA_TASK_ROOT, 'assets'));
  return inMemoryAssets();
};

export interface StaticDeps {
  assets?: AssetSource;
}

const withSecurity = (result: ApiResult): ApiResult => ({ ...result, headers: { ...(result.headers ?? {}), ...SECURITY_HEADERS } });

const asset = (found: StaticAsset): ApiResult =>
  withSecurity({ statusCode: 200, headers: { 'Content-Type': found.contentType }, body: found.body });

/** Only built scripts and styles are served under /assets/; the HTML shells only at their pages. */
const ASSET_FILE = /^[a-z0-9][a-z0-9-]*\.(js|css)$/;

/** The file a path asks for, or null. */
export const fileFor = (path: string): string | null => {
  if (/^\/r\/[^/]+$/.test(path)) return 'subject.html';
  if (/^\/s\/[^/]+$/.test(path)) return 'share.html';
  if (path.startsWith('/app/api/')) return null; // an unknown member endpoint is a 404, not the page
  if (path === '/app' || /^\/app\/.+/.test(path)) return 'app.html';
  const file = /^\/assets\/([^/]+)$/.exec(path)?.[1];
  return file && ASSET_FILE.test(file) ? file : null;
};

/**
 * The handler for the four page routes. `deps` may be the whole AppDeps (the local gateway passes
 * it): only `assets` is read, never the table.
 */
export const createHandler = (deps: StaticDeps | (AppDeps & StaticDeps) = {}) => {
  const source = deps.assets ?? defaultAssetSource();
  return async (event: ApiEvent, _context?: Context): Promise<ApiResult> => {
    const method = event.requestContext?.http?.method ?? 'GET';
    const file = method === 'GET' ? fileFor(event.rawPath) : null;
    if (!file) return withSecurity(errorResponse(notFound('No such page.')));
    let assets: ReadonlyMap<string, StaticAsset>;
    try {
      assets = await source();
    } catch (error) {
      return withSecurity(errorResponse(error)); // a plain 500, nothing of the cause
    }
    const found = assets.get(file);
    if (!found) return withSecurity(errorResponse(notFound('No such page.')));
    return asset(found);
  };
};

let deployed: ReturnType<typeof createHandler> | undefined;
export const handler = (event: ApiEvent, context: Context) => (deployed ??= createHandler())(event, context);
