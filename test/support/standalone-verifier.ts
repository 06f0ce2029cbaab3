import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The single-file verifier auditors run (docs/certificates-and-shares.md, "Custody certificates", "Verifying"). */
export const VERIFIER = resolve(import.meta.dirname, '../../tools/verify-custody-certificate.mjs');

type Outcome = { ok: true; summary: string; certificate: any; documentSha256: string } | { ok: false; reason: string };

/** What the file exports, typed for the tests (it is plain JavaScript without declarations, on purpose). */
export interface StandaloneVerifier {
  canonicalJson(value: unknown): string;
  parseJwks(value: unknown): unknown;
  verifyCertificateText(text: string, jwks: unknown): Outcome;
  verifyCertificate(document: unknown, jwks: unknown): Outcome;
  verifyAgreement(certificates: unknown[]): { ok: true; shared: number; summary: string } | { ok: false; reason: string };
  extractEmbeddedCertificate(pdf: Uint8Array): string;
  extractEmbeddedFiles(pdf: Uint8Array): Array<{ name: string; bytes: Uint8Array }>;
}

/** The file, imported in-process (a specifier TypeScript does not resolve, so no declaration is needed). */
export const loadStandaloneVerifier = async () => (await import(pathToFileURL(VERIFIER).href)) as StandaloneVerifier;

export interface StandaloneRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the verifier as an auditor would: the file alone, copied into a fresh folder outside the
 * repository (no node_modules above it, no package.json), started with `node` and an environment
 * holding only PATH (no NODE_OPTIONS loaders, no NODE_PATH). `files` are written into that folder
 * under their names and `args` name them relatively, so what it prints is the same on every run.
 * `script` runs another file on the same folder instead (the package's bin shim, in a clone).
 */
export const runStandalone = (args: string[], files: Record<string, Uint8Array | string> = {}, script = 'verify-custody-certificate.mjs') =>
  new Promise<StandaloneRun>((done) => {
    const folder = mkdtempSync(join(tmpdir(), 'custody-auditor-'));
    // Nothing a bare import could resolve to: no node_modules or package.json in the folder or above it.
    for (let at = folder; ; at = dirname(at)) {
      if (existsSync(join(at, 'node_modules')) || existsSync(join(at, 'package.json'))) throw new Error(`${at} would let the verifier resolve packages`);
      if (dirname(at) === at) break;
    }
    copyFileSync(VERIFIER, join(folder, 'verify-custody-certificate.mjs'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
    execFile(
      process.execPath,
      [script, ...args],
      { cwd: folder, env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        rmSync(folder, { recursive: true, force: true });
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
