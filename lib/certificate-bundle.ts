import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { CERTIFICATE_ENTRY } from '../lambdas/http/api-routes.ts';
import { REPO_ROOT } from './api-functions.ts';
import { esbuildOptionsOfStack } from './esbuild-options.ts';

/** What the bundle takes for pdfkit's font engine: the certificate draws with standard PDF fonts only. */
export const FONTKIT_STAND_IN = 'lambdas/http/certificates/no-fontkit.ts';

/**
 * The certificate function's bundle: the stack's options plus code splitting, so the PDF renderer
 * (render-pdf.ts and pdfkit, which the handler imports dynamically) is a file of its own beside
 * index.mjs that only a PDF loads, and what both use a shared chunk that index.mjs imports; and
 * fontkit, pdfkit's font engine, replaced by FONTKIT_STAND_IN.
 *
 * A build of its own because NodejsFunction runs esbuild with --outfile, and esbuild splits code
 * only into an --outdir: the stack runs this module after the CDK's own build (an afterBundling
 * hook, lib/api-functions.ts), and its files replace that build's index.mjs in the asset.
 */
export const certificateBuildOptions = (outdir: string): BuildOptions => ({
  ...esbuildOptionsOfStack(),
  absWorkingDir: REPO_ROOT,
  entryPoints: { index: path.join(REPO_ROOT, CERTIFICATE_ENTRY) },
  outdir,
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: '[name]-[hash]',
  alias: { fontkit: path.join(REPO_ROOT, FONTKIT_STAND_IN) },
});

/** Writes the certificate function's files into `outdir`: index.mjs and its chunks. */
export const buildCertificateFunction = (outdir: string) => build({ ...certificateBuildOptions(outdir), metafile: true });

/** `tsx lib/certificate-bundle.ts <outdir>`: the stack's afterBundling hook. */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outdir = process.argv[2];
  if (!outdir) throw new Error('usage: tsx lib/certificate-bundle.ts <outdir>');
  await buildCertificateFunction(path.resolve(outdir));
}
