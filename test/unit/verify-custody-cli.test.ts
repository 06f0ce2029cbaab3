import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { main, type CliIo } from '../../bin/verify-custody-certificate.ts';
import type { SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { jwksOf, makeCertificate, makeChain, makeKey, rewriteEntry, signCertificate, type TestKey } from '../support/custody-fixtures.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runs `main` in-process, collecting what it prints. */
const runCli = async (argv: string[], io: Partial<CliIo> = {}) => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(argv, { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line), ...io });
  return { code, stdout, stderr };
};

let dir: string;
let key: TestKey;
let certificate: SignedCertificate;
let certPath: string;
let jwksPath: string;

const write = async (name: string, content: unknown) => {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' || content instanceof Uint8Array ? content : canonicalJson(content));
  return path;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'verify-custody-'));
  key = await makeKey();
  // Seq 6 completes the request, so the certificate is final.
  certificate = signCertificate(makeCertificate(makeChain(6), { seqs: [1, 3, 6], certificateId: 'cert_a' }), key);
  certPath = await write('cert.json', certificate);
  jwksPath = await write('jwks.json', jwksOf(key));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('verify-custody-certificate, in-process', () => {
  test('a valid certificate with --jwks FILE: exit 0, a summary line and what was checked', async () => {
    const { code, stdout, stderr } = await runCli(['--jwks', jwksPath, certPath]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: [] });
    expect(stdout[0]).toBe(
      `valid: request req_01JTESTREQUEST of organisation "Acme Support" (final), 3 chain entries up to seq 6, signed by ${key.jwk.kid} (Ed25519) [${certPath}; keys from ${jwksPath}]`,
    );
    // Under it, what was checked: the canonical text, the key, the signed bytes, the chain, the facts.
    expect(stdout.slice(1)).toEqual([
      expect.stringMatching(/^ {2}checked: the file \(SHA-256 [0-9a-f]{64}\) is the RFC 8785 canonical JSON of the certificate$/),
      `  checked: key ${key.jwk.kid} is in the key set, is Ed25519, and its RFC 7638 thumbprint is its kid`,
      expect.stringMatching(/^ {2}checked: the base64url Ed25519 signature is valid over \{"document_sha256":"[0-9a-f]{64}","format":"service-custody\/v1"\}$/),
      '  checked: 3 chain entries hash to their content, link where consecutive, and lie at or before the chain head',
      '  checked: 3 timeline facts and the destruction name carried entries and agree with them',
    ]);
  });

  test('one changed byte: exit 1 with the reason', async () => {
    const text = canonicalJson(certificate).replace('"Acme Support"', '"Acme Supporu"');
    const changed = await write('changed.json', text);
    const { code, stdout, stderr } = await runCli(['--jwks', jwksPath, changed]);
    expect({ code, stdout }).toEqual({ code: 1, stdout: [] });
    expect(stderr).toEqual([`invalid: ${changed}: signature does not verify with key ${key.jwk.kid}`]);
  });

  test('a file that is not JSON is a reason, not a crash', async () => {
    const broken = await write('broken.json', canonicalJson(certificate).slice(0, 100));
    const { code, stderr } = await runCli(['--jwks', jwksPath, broken]);
    expect(code).toBe(1);
    expect(stderr[0]).toMatch(new RegExp(`^invalid: ${broken.replace(/[.\\]/g, '\\$&')}: not JSON \\(`));
  });

  test('without --jwks it is a usage error; --jwks URL fetches the key set, saying that trusts the address at that moment', async () => {
    const asked: string[] = [];
    const fetchJwks = (async (url: string | URL | Request) => {
      asked.push(String(url));
      return new Response(JSON.stringify(jwksOf(key)), { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    // The address the certificate itself names is not taken on its word: a forger names their own.
    expect(await runCli([certPath], { fetch: fetchJwks })).toMatchObject({ code: 2, stdout: [], stderr: [expect.stringMatching(/^no key set given: pass --jwks FILE/)] });
    expect(asked).toEqual([]);

    const { code, stdout, stderr } = await runCli(['--jwks', certificate.issuer.jwks_url, certPath], { fetch: fetchJwks });
    expect(code).toBe(0);
    expect(asked).toEqual([certificate.issuer.jwks_url]);
    expect(stderr).toEqual([expect.stringMatching(/^note: fetching the key set from https:\/\/api\.handoff\.example\.com\/\.well-known\/jwks\.json now \(.*\): this trusts whoever answers at that address at this moment/)]);
    expect(stdout[0]).toMatch(/ \[.*; keys from https:\/\/api\.handoff\.example\.com\/\.well-known\/jwks\.json\]$/);

    const unreachable = (async () => new Response('nope', { status: 503 })) as typeof fetch;
    const down = await runCli(['--jwks', 'https://keys.example.com/jwks.json', certPath], { fetch: unreachable });
    expect(down).toMatchObject({ code: 1, stderr: [expect.stringMatching(/^note: /), 'invalid: the key set at https://keys.example.com/jwks.json cannot be fetched (HTTP 503)'] });
  });

  test('a key set that is not one: exit 1 with the reason', async () => {
    const badJwks = await write('bad-jwks.json', { keys: [{ kty: 'RSA', n: 'x', e: 'AQAB', kid: 'r1' }] });
    const { code, stderr } = await runCli(['--jwks', badJwks, certPath]);
    expect(code).toBe(1);
    expect(stderr).toEqual([`invalid: the key set ${badJwks}: JWKS key 1: not an Ed25519 key (kty "RSA", crv nothing)`]);
  });

  test('two certificates: one line each, then the agreement line', async () => {
    const chain = makeChain(6);
    const share = signCertificate(makeCertificate(chain, { kind: 'share', seqs: [5, 6], certificateId: 'cert_b' }), key);
    const sharePath = await write('share.json', share);
    const run = await runCli(['--jwks', jwksPath, certPath, sharePath]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: [] });
    const stdout = run.stdout.filter((line) => !line.startsWith('  checked: '));
    expect(stdout).toHaveLength(3);
    expect(stdout[0]).toMatch(/^valid: request /);
    expect(stdout[1]).toMatch(/^valid: share shr_01JTESTSHARE /);
    expect(stdout[2]).toBe('agreement: 2 certificates of organisation "Acme Support" agree on 1 shared chain entry and 1 link between them');

    const forged = signCertificate(makeCertificate(rewriteEntry(chain, 3, { note: 'rewritten' }, true), { seqs: [3], certificateId: 'cert_c' }), key);
    const forgedPath = await write('forged.json', forged);
    const disagreeing = await runCli(['--jwks', jwksPath, certPath, forgedPath]);
    expect(disagreeing.code).toBe(1);
    expect(disagreeing.stderr[0]).toMatch(/^invalid: certificates disagree on seq 3: certificate 1 \(cert_a\) entry 3 has hash /);
  });

  test('usage errors exit 2; --help exits 0', async () => {
    expect(await runCli([])).toMatchObject({ code: 2, stderr: [expect.stringMatching(/^no certificate given\n\nUsage: node verify-custody-certificate\.mjs --jwks /)] });
    expect(await runCli(['--bogus', certPath])).toMatchObject({ code: 2, stderr: [expect.stringMatching(/Unknown option '--bogus'/)] });
    expect(await runCli([certPath, '--jwks'])).toMatchObject({ code: 2 });
    expect(await runCli(['--help'])).toMatchObject({ code: 0, stdout: [expect.stringMatching(/^Usage: /)] });
  });

  test('a missing file is a reason', async () => {
    const missing = join(dir, 'missing.json');
    const { code, stderr } = await runCli(['--jwks', jwksPath, missing]);
    expect(code).toBe(1);
    expect(stderr[0]).toMatch(/^invalid: .*missing\.json: cannot be read \(ENOENT/);
  });
});

describe('verify-custody-certificate as a command', () => {
  test('the bin shim runs under plain node (it is the single-file verifier)', async () => {
    const shim = join(ROOT, 'bin/verify-custody-certificate.js');
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [shim, '--jwks', jwksPath, certPath], { cwd: ROOT });
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^valid: request req_01JTESTREQUEST .*\n( {2}checked: .*\n){5}$/);

    const changed = await write('changed-for-shim.json', canonicalJson(certificate).replace('"final":true', '"final":false'));
    const failed = await promisify(execFile)(process.execPath, [shim, '--jwks', jwksPath, changed], { cwd: ROOT }).catch((error) => error);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(`invalid: ${changed}: signature does not verify with key ${key.jwk.kid}\n`);
  });
});

describe('verify-custody-certificate --pdf', () => {
  /** A PDF with `json` attached under `name`, as a certificate PDF carries its signed JSON. */
  const pdfWith = async (attachments: Array<{ name: string; json: string }>) => {
    const { default: PDFDocument } = await import('pdfkit');
    const doc = new PDFDocument();
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((done) => doc.on('end', done));
    for (const { name, json } of attachments) doc.file(Buffer.from(json, 'utf8'), { name, type: 'application/json' });
    doc.text('Custody certificate');
    doc.end();
    await ended;
    return Buffer.concat(chunks);
  };

  test('the signed JSON embedded in a PDF verifies; a changed one does not', async () => {
    const good = await write('cert.pdf', await pdfWith([{ name: 'certificate.json', json: canonicalJson(certificate) }]));
    const valid = await runCli(['--pdf', '--jwks', jwksPath, good]);
    expect(valid).toMatchObject({ code: 0, stderr: [] });
    expect(valid.stdout[0]).toMatch(/^valid: request req_01JTESTREQUEST .* \[.*cert\.pdf; keys from /);
    expect(valid.stdout[1]).toMatch(/^ {2}checked: the JSON embedded in the PDF \(SHA-256 /);

    const changedJson = canonicalJson(certificate).replace('"Acme Support"', '"Acme Supporu"');
    const bad = await write('changed.pdf', await pdfWith([{ name: 'certificate.json', json: changedJson }]));
    expect(await runCli(['--pdf', '--jwks', jwksPath, bad])).toMatchObject({
      code: 1,
      stderr: [`invalid: ${bad}: signature does not verify with key ${key.jwk.kid}`],
    });
  });

  test('a PDF without the certificate, or not a PDF, is a reason', async () => {
    const bare = await write('bare.pdf', await pdfWith([]));
    const none = await runCli(['--pdf', '--jwks', jwksPath, bare]);
    expect(none.code).toBe(1);
    expect(none.stderr[0]).toMatch(/^invalid: .*bare\.pdf: .*no embedded certificate/i);
    const notPdf = await runCli(['--pdf', '--jwks', jwksPath, certPath]);
    expect(notPdf.code).toBe(1);
    expect(notPdf.stderr[0]).toMatch(/^invalid: .*cert\.json: Not a PDF/);
  });
});
