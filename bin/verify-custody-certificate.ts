/**
 * `verify-custody-certificate [--jwks FILE|URL] [--pdf] cert1 [cert2 ...]`: checks custody
 * certificates (`service-custody/v1`) offline, then that two or more of them agree.
 *
 * A thin command around the library entry, lambdas/core/custody/verify.ts (verifyCertificate,
 * verifyAgreement, parseJwks): programs should import that, not this. Runs as a script
 * (`npx tsx bin/verify-custody-certificate.ts ...`), through the package's `bin` shim
 * (bin/verify-custody-certificate.js), or in-process through `main` (the tests).
 *
 * Exit 0: every certificate is valid (one summary line each, plus an agreement line for 2+).
 * Exit 1: `invalid: <first reason>` on stderr. Exit 2: usage error.
 */
import { readFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Jwks, SignedCertificate } from '#core/custody/document.ts';
import { parseJwks, verifyAgreement, verifyCertificateText } from '#core/custody/verify.ts';

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  fetch: typeof fetch;
  readFile: (path: string) => Promise<Uint8Array>;
}

const USAGE = [
  'Usage: verify-custody-certificate [--jwks FILE|URL] [--pdf] CERTIFICATE [CERTIFICATE ...]',
  '',
  'Verifies custody certificates (service-custody/v1): the Ed25519 signature, the audit chain',
  'entries they carry, and, given two or more, that they agree on the chain they share.',
  '',
  '  --jwks FILE|URL  the issuer\'s published key set (JWKS). Without it, the key set is fetched',
  '                   from the first certificate\'s issuer.jwks_url: that proves the certificate',
  '                   matches the keys at that address, so check the address is the issuer\'s.',
  '  --pdf            the inputs are PDF certificates with the signed JSON embedded',
  '  -h, --help       this text',
  '',
  'Exit status: 0 all valid, 1 invalid (the first reason on stderr), 2 usage error.',
].join('\n');

/** A failure that ends the run with exit 1 and `invalid: <reason>`. */
class Invalid extends Error {}

const isHttpUrl = (value: string) => /^https?:\/\//i.test(value);

const defaultIo = (): CliIo => ({
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  fetch: globalThis.fetch,
  readFile: (path) => readFile(path),
});

const readBytes = async (io: CliIo, path: string) => {
  try {
    return await io.readFile(path);
  } catch (error) {
    throw new Invalid(`${path}: cannot be read (${(error as Error).message})`);
  }
};

const parseJsonText = (text: string, what: string): unknown => {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Invalid(`${what}: not JSON (${(error as Error).message})`);
  }
};

/** The signed JSON of one input: the file itself, or the certificate a PDF embeds. */
const certificateText = async (io: CliIo, path: string, pdf: boolean) => {
  const bytes = await readBytes(io, path);
  if (!pdf) return new TextDecoder().decode(bytes);
  // Loaded only for --pdf, so plain JSON runs never load PDF code.
  const { extractEmbeddedCertificate } = await import('#core/custody/pdf-attachment.ts');
  try {
    return extractEmbeddedCertificate(bytes);
  } catch (error) {
    throw new Invalid(`${path}: ${(error as Error).message}`);
  }
};

const loadJwks = async (io: CliIo, source: string): Promise<Jwks> => {
  let text: string;
  if (isHttpUrl(source)) {
    try {
      const response = await io.fetch(source, { headers: { accept: 'application/jwk-set+json, application/json' }, signal: AbortSignal.timeout(15_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } catch (error) {
      // fetch says only "fetch failed"; the cause says why (DNS, refused, TLS).
      const cause = (error as Error).cause instanceof Error ? `: ${((error as Error).cause as Error).message}` : '';
      throw new Invalid(`the key set at ${source} cannot be fetched (${(error as Error).message}${cause})`);
    }
  } else {
    text = new TextDecoder().decode(await readBytes(io, source));
  }
  try {
    return parseJwks(parseJsonText(text, `the key set ${source}`));
  } catch (error) {
    throw error instanceof Invalid ? error : new Invalid(`the key set ${source}: ${(error as Error).message}`);
  }
};

/** Without --jwks: the key set the first certificate says its issuer publishes. */
const issuerJwksUrl = (document: unknown, path: string) => {
  const url = (document as { issuer?: { jwks_url?: unknown } } | null)?.issuer?.jwks_url;
  if (typeof url !== 'string' || !isHttpUrl(url)) throw new Invalid(`${path}: names no http(s) issuer.jwks_url; pass --jwks`);
  return url;
};

const run = async (io: CliIo, paths: string[], options: { jwks?: string; pdf: boolean }) => {
  const texts: string[] = [];
  for (const path of paths) texts.push(await certificateText(io, path, options.pdf));
  const source = options.jwks ?? issuerJwksUrl(parseJsonText(texts[0], paths[0]), paths[0]);
  if (!options.jwks) io.stderr(`note: the keys come from the address the certificate itself names (${source}); pass --jwks with your issuer's key set to check against keys you trust`);
  const jwks = await loadJwks(io, source);

  const lines: string[] = [];
  const certificates: SignedCertificate[] = [];
  for (const [index, text] of texts.entries()) {
    const outcome = await verifyCertificateText(text, jwks);
    if (!outcome.ok) throw new Invalid(`${paths[index]}: ${outcome.reason}`);
    certificates.push(outcome.certificate);
    lines.push(`${outcome.summary} [${paths[index]}; keys from ${source}]`);
  }
  if (certificates.length > 1) {
    const agreement = verifyAgreement(certificates);
    if (!agreement.ok) throw new Invalid(agreement.reason);
    lines.push(agreement.summary);
  }
  return lines;
};

/** The command, in-process: returns the exit status instead of exiting. */
export const main = async (argv: string[], io: Partial<CliIo> = {}): Promise<number> => {
  const out: CliIo = { ...defaultIo(), ...io };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { jwks: { type: 'string' }, pdf: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    out.stderr(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.stdout(USAGE);
    return 0;
  }
  if (positionals.length === 0 || values.jwks === '') {
    out.stderr(`${positionals.length === 0 ? 'no certificate given' : '--jwks needs a file or URL'}\n\n${USAGE}`);
    return 2;
  }
  try {
    for (const line of await run(out, positionals, { jwks: values.jwks, pdf: values.pdf })) out.stdout(line);
    return 0;
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    out.stderr(`invalid: ${error.message}`);
    return 1;
  }
};

/** Whether Node was started on this file (tsx bin/verify-custody-certificate.ts); the .js shim calls main itself. */
const startedAsScript = () => {
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false; // no script path (a REPL, node -e): imported, not run
  }
};

if (startedAsScript()) process.exitCode = await main(process.argv.slice(2));
