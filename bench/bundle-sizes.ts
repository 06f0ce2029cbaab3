import { build } from 'esbuild';
import { BUNDLING } from '../lib/api-functions.ts';
import { FALLBACK_ENTRY, routeList } from '../lambdas/http/routes.ts';

/**
 * Bundles every function the stack deploys with the stack's own bundling options (translated
 * from the CDK's NodejsFunction props to esbuild's) and reports the bytes.
 */
export const bundleSizes = async () => {
  const entries = [...routeList().map((route) => ({ name: route.name, entry: route.entry })), { name: 'fallback', entry: FALLBACK_ENTRY }];
  const sizes: Array<{ name: string; bytes: number }> = [];
  for (const { name, entry } of entries) {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      write: false,
      outfile: 'index.mjs',
      format: BUNDLING.format === 'esm' ? 'esm' : 'cjs',
      target: BUNDLING.target,
      minify: BUNDLING.minify,
      mainFields: BUNDLING.mainFields,
      external: BUNDLING.externalModules,
      banner: BUNDLING.banner ? { js: BUNDLING.banner } : undefined,
      logLevel: 'error',
    });
    sizes.push({ name, bytes: result.outputFiles!.reduce((sum, file) => sum + file.contents.byteLength, 0) });
  }
  return sizes;
};
