import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * Builds the browser side: the subject's link page, the member application and a share's recipient
 * page, each a TypeScript entry bundled by esbuild (WebCrypto code and `canonicalize` included)
 * into one ES module, the style sheet, and the three HTML shells that load them from /assets/.
 *
 * Used two ways: in memory by the static handler when it runs locally (lambdas/http/static/serve.ts),
 * and as a CLI that writes the files to a folder for the deployed function:
 *
 *   npx tsx web/build.ts <outdir>
 */
export interface WebAsset {
  contentType: string;
  body: string;
}

/** The file names the build produces; the static handler serves nothing else. */
export const WEB_ASSET_NAMES = ['subject.html', 'app.html', 'share.html', 'subject.js', 'app.js', 'share.js', 'styles.css'] as const;

const WEB_ROOT = dirname(fileURLToPath(import.meta.url));

export const contentTypeOf = (name: string) => {
  if (name.endsWith('.html')) return 'text/html; charset=utf-8';
  if (name.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (name.endsWith('.css')) return 'text/css; charset=utf-8';
  return 'application/octet-stream';
};

/** Builds every asset in memory: file name (e.g. `subject.js`) to content type and body. */
export const buildWebAssets = async (): Promise<Map<string, WebAsset>> => {
  const result = await build({
    absWorkingDir: WEB_ROOT,
    entryPoints: {
      subject: join(WEB_ROOT, 'subject/main.ts'),
      app: join(WEB_ROOT, 'app/main.ts'),
      share: join(WEB_ROOT, 'share/main.ts'),
      styles: join(WEB_ROOT, 'styles.css'),
    },
    outdir: join(WEB_ROOT, 'dist'),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    // The page's code must never reach for anything of the server's.
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets = new Map<string, WebAsset>();
  for (const file of result.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    assets.set(name, { contentType: contentTypeOf(name), body: file.text });
  }
  for (const page of ['subject.html', 'app.html', 'share.html']) {
    const folder = page.replace('.html', '');
    assets.set(page, { contentType: contentTypeOf(page), body: await readFile(join(WEB_ROOT, folder, 'index.html'), 'utf8') });
  }
  for (const name of WEB_ASSET_NAMES) if (!assets.has(name)) throw new Error(`web build produced no ${name}`);
  return assets;
};

/** Writes every asset into `outDir` (created if missing). */
export const writeWebAssets = async (outDir: string) => {
  const assets = await buildWebAssets();
  await mkdir(outDir, { recursive: true });
  for (const [name, asset] of assets) await writeFile(join(outDir, name), asset.body, 'utf8');
  return [...assets.keys()];
};

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const outDir = process.argv[2];
  if (!outDir) {
    console.error('usage: npx tsx web/build.ts <outdir>');
    process.exit(2);
  }
  const written = await writeWebAssets(resolve(outDir));
  console.log(`web assets written to ${resolve(outDir)}: ${written.join(', ')}`);
}
