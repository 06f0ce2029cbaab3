import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface VerifierRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The published `verify-custody-certificate` command as a person runs it (the package's bin shim,
 * in a process of its own), over files written to a temporary folder: certificates (JSON or, with
 * `pdf`, PDF) and the JWKS saved from the service, so the check is offline.
 */
export const runVerifier = (files: Array<Buffer | string>, jwks: unknown, options: { pdf?: boolean } = {}) =>
  new Promise<VerifierRun>((resolve) => {
    const folder = mkdtempSync(join(tmpdir(), 'verify-custody-'));
    const jwksPath = join(folder, 'jwks.json');
    writeFileSync(jwksPath, JSON.stringify(jwks));
    const paths = files.map((bytes, index) => {
      const path = join(folder, `certificate-${index}.${options.pdf ? 'pdf' : 'json'}`);
      writeFileSync(path, bytes);
      return path;
    });
    execFile(
      process.execPath,
      ['bin/verify-custody-certificate.js', '--jwks', jwksPath, ...(options.pdf ? ['--pdf'] : []), ...paths],
      { cwd: process.cwd(), timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

/** The same bytes with one byte changed: the character at `at` replaced by another. */
export const withOneByteChanged = (bytes: Buffer, at: number) => {
  const changed = Buffer.from(bytes);
  changed[at] = changed[at] === 0x30 ? 0x31 : 0x30;
  return changed;
};
