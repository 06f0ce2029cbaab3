import { createHash, createPublicKey, verify } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import type { CertificateChainEntry, CustodyFact, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { extractEmbeddedCertificate, extractEmbeddedFiles } from '../support/pdf-attachment-oracle.ts';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { certificateFileName, renderCertificatePdf, VERIFIER_PATH } from '../../lambdas/http/certificates/render-pdf.ts';
import { makeKey, signCertificate } from '../support/custody-fixtures.ts';
import { plainPdf } from '../support/plain-pdf.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

// ---- A plausible certificate (signature value is not checked here; rendering only) ----
const ORG_ID = 'org_01JQ7ZV3M2K8Y4T6R0P9N5B1C3';
const ORG_NAME = 'Northwind IT Services – Zürich';
const REQUEST_ID = 'req_01JQ80A7XH5V9W3N2M4K6P8R0T';
const SHARE_ID = 'shr_01JQ80C2D4F6G8H0J2K4M6N8P0';
const KID = 'Xq3f0cR1v8nJt2bW6yZp4LkHs9dAeMuG7oTiQ5xC0vE';

type Step = [type: string, event: string, actor: CustodyFact['actor'], reason: string | null];
const ada = { type: 'member', label: 'Ada Lovelace' };
const subject = { type: 'subject', label: 'Zoë Ångström' };
const system = { type: 'system', label: null };
const REQUEST_STEPS: Step[] = [
  ['request.created', 'created', ada, null],
  ['request.opened', 'opened', subject, null],
  ['subject.email_code_sent', 'email code sent', system, null],
  ['subject.verified', 'subject verified', subject, null],
  ['request.submitted', 'submitted', subject, null],
  ['request.revealed', 'revealed', ada, null],
  ['ticket.status_received', 'ticket status received', { type: 'integration', label: 'Zendesk' }, 'solved'],
  ['request.completed', 'completed', system, 'ticket closed'],
];
const SHARE_STEPS: Step[] = [
  ['share.created', 'created', ada, null],
  ['share.revealed', 'revealed', { type: 'recipient', label: null }, null],
  ['share.purged', 'purged', system, 'view limit reached'],
];

const DAY = 86_400_000;

/**
 * `factCount` facts: the steps in order, a long timeline repeating the middle ones. `backupDays`:
 * the point-in-time recovery the destruction states (null: a certificate issued before it did).
 */
const makeCertificate = (kind: 'request' | 'share', factCount: number, backupDays: number | null = 7, ciphertextStored = true): SignedCertificate => {
  const steps = kind === 'request' ? REQUEST_STEPS : SHARE_STEPS;
  const middle = steps.slice(1, -1);
  const plan = factCount <= steps.length ? steps : [steps[0], ...Array.from({ length: factCount - 2 }, (_, i) => middle[i % middle.length]), steps[steps.length - 1]];
  const entries: CertificateChainEntry[] = [];
  const timeline: CustodyFact[] = [];
  let prevHash = sha256('earlier entries');
  plan.forEach(([type, event, actor, reason], i) => {
    const seq = 1041 + i * 3;
    const at = new Date(Date.UTC(2026, 2, 9, 9, 14 + i * 7, 31)).toISOString();
    const content = {
      orgId: ORG_ID,
      seq,
      type,
      occurredAt: at,
      prevHash,
      actor: { ...actor, id: null },
      clientId: 'cli_01JQ7ZW0',
      requestId: kind === 'request' ? REQUEST_ID : null,
      ...(kind === 'share' && { shareId: SHARE_ID }),
      data: reason ? { details: { reason } } : {},
    };
    const hash = sha256(JSON.stringify(content));
    entries.push({ seq, type, occurred_at: at, prev_hash: prevHash, hash, content });
    timeline.push({ event, at, seq, type, actor, reason });
    prevHash = hash;
  });
  const last = timeline[timeline.length - 1];
  const common = {
    format: 'service-custody/v1' as const,
    certificate_id: 'cert_01JQ81B5S7T9V1W3X5Y7Z9A1B3',
    issued_at: '2026-03-09T17:02:44.512Z',
    issuer: { name: 'Credential Handoff', app_url: 'https://handoff.example.com', jwks_url: 'https://api.handoff.example.com/.well-known/jwks.json' },
    final: true,
    organisation: { id: ORG_ID, name: ORG_NAME },
    client: { id: 'cli_01JQ7ZW0', name: 'Contoso Pharmaceuticals' },
    ticket: { ref: 'INC-20417', external_id: '20417', integration_id: 'int_01', url: 'https://northwind.zendesk.com/agent/tickets/20417' },
    timeline,
    destruction: {
      destroyed: true,
      at: last.at,
      reason: last.reason,
      seq: last.seq,
      ...(backupDays !== null && {
        scope: 'live_table' as const,
        ciphertext_stored: ciphertextStored,
        backups: {
          point_in_time_recovery_days: backupDays,
          ciphertext_restorable_until: ciphertextStored && backupDays > 0 ? new Date(Date.parse(last.at) + backupDays * DAY).toISOString() : null,
        },
      }),
    },
    chain: { organisation_id: ORG_ID, head: { seq: last.seq + 12, hash: sha256('head') }, entries, omitted_entries: 0 },
    signature: { alg: 'Ed25519', kid: KID, value: 'c2lnbmF0dXJlLW5vdC1jaGVja2VkLWhlcmU' },
  };
  if (kind === 'share') {
    return {
      ...common,
      subject_kind: 'share',
      share: {
        id: SHARE_ID,
        status: 'purged',
        created_by: { membership_id: 'mem_01JQ7ZX1', name: 'Ada Lovelace', email: 'ada@northwind.example' },
        sealed_to: { fingerprint: sha256('one-time key') },
        view_limit: 1,
        views: 1,
        expires_at: '2026-03-16T09:14:31.000Z',
      },
    };
  }
  return {
    ...common,
    subject_kind: 'request',
    request: {
      id: REQUEST_ID,
      status: 'completed',
      subject_name: 'Zoë Ångström',
      requester: { membership_id: 'mem_01JQ7ZX1', name: 'Ada Lovelace', email: 'ada@northwind.example' },
      recipients: [
        { membership_id: 'mem_01JQ7ZX1', label: 'Ada Lovelace (laptop)', fingerprint: sha256('ada key') },
        { membership_id: 'mem_01JQ7ZX9', label: 'Grace Hopper', fingerprint: sha256('grace key') },
      ],
      commitment: { value: sha256('commitment'), computed_by: 'browser' },
    },
  };
};

/** The JSON as a service might serve it; non-ASCII included so "byte-identical" means something. */
const servedJson = (certificate: SignedCertificate) => `${JSON.stringify(certificate, null, 2)}\n`;

// ---- Reading the PDF back with an independent reader (pdf.js) ----
const standardFontDataUrl = join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts/');

const readPdf = async (pdf: Buffer) => {
  const document = await getDocument({ data: new Uint8Array(pdf), standardFontDataUrl, verbosity: VerbosityLevel.ERRORS, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= document.numPages; n++) {
    const content = await (await document.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  const attachments = (await document.getAttachments()) as Record<string, { filename: string; content: Uint8Array }> | null;
  await document.destroy();
  return { pages, text: pages.join('\n'), attachments };
};

const squeezed = (text: string) => text.replace(/\s+/g, '');
/** Lines joined by single spaces: a sentence reads whole wherever the PDF wrapped it. */
const spaced = (text: string) => text.replace(/\s+/g, ' ');

describe('renderCertificatePdf', () => {
  it('renders a request certificate with every fact a person needs and the JSON attached', async () => {
    const certificate = makeCertificate('request', 8);
    if (certificate.subject_kind !== 'request') throw new Error('fixture');
    expect(certificate.timeline).toHaveLength(8);
    const json = servedJson(certificate);
    const pdf = await renderCertificatePdf(certificate, json);

    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const embedded = extractEmbeddedCertificate(pdf);
    expect(Buffer.from(embedded, 'utf8').equals(Buffer.from(json, 'utf8'))).toBe(true);

    const { pages, text, attachments } = await readPdf(pdf);
    // pdf.js, reading independently, finds the same one attachment under the same name.
    expect(Object.values(attachments ?? {}).map((file) => file.filename)).toEqual([certificateFileName(certificate)]);
    expect(Buffer.from(Object.values(attachments!)[0].content).toString('utf8')).toBe(json);

    expect(text).toContain('Custody certificate');
    expect(text).toContain(ORG_NAME);
    expect(text).toContain(REQUEST_ID);
    expect(text).toContain('Zoë Ångström');
    expect(text).toContain('INC-20417');
    expect(text).toContain(KID);
    expect(text).toContain('Ed25519');
    expect(text).toContain('verify-custody-certificate');
    expect(text).toContain(certificate.issuer.jwks_url);
    const flat = squeezed(text);
    for (const recipient of certificate.request.recipients) expect(flat).toContain(recipient.fingerprint);
    expect(flat).toContain(certificate.request.commitment.value);
    expect(flat).toContain(sha256(json));
    expect(flat).toContain(certificate.chain.head.hash);
    for (const fact of certificate.timeline) {
      expect(text.toLowerCase()).toContain(fact.event.toLowerCase());
      expect(text).toContain(String(fact.seq));
    }
    expect(text).toContain('ticket closed');
    expect(pages[0]).toContain(`Page 1 of ${pages.length}`);
  });

  it('shows a name beyond Latin-1 without its accent where that leaves a Latin letter, else as ?, and says the JSON has it exactly', async () => {
    const certificate = makeCertificate('request', 2);
    if (certificate.subject_kind !== 'request') throw new Error('fixture');
    certificate.request.subject_name = 'Dvořák Łukasz Őri 李明';
    const json = servedJson(certificate);
    const { text } = await readPdf(await renderCertificatePdf(certificate, json));
    expect(text).toContain('Dvorák Lukasz Ori ??');
    expect(spaced(text)).toContain('another letter is shown without its accent where that leaves a Latin one (an r with a caron as r), and as ? otherwise; the JSON has the exact text.');
    expect(extractEmbeddedCertificate(await renderCertificatePdf(certificate, json))).toContain('Dvořák Łukasz Őri 李明');
  });

  it('says which bytes are signed, in words a signature checked as they say verifies by, and how to run the verifier without npx', async () => {
    const key = await makeKey();
    const certificate = signCertificate(makeCertificate('request', 8), key);
    const json = canonicalJson(certificate);
    const text = spaced((await readPdf(await renderCertificatePdf(certificate, json))).text);

    // The signed bytes, as printed (a template), and what stands for the digest in it.
    expect(text).toContain(`${certificateFileName(certificate)} is the certificate: the RFC 8785 (JCS) canonical JSON of the signed document.`);
    expect(text).toContain('Its signature.value is an Ed25519 signature (signature.alg Ed25519), base64url-encoded without padding');
    expect(text).toContain('by the key whose RFC 7638 thumbprint is signature.kid (the key id above)');
    expect(squeezed(text)).toContain(`Signingkeyid(kid)${key.jwk.kid}`);
    expect(text).toContain('where D is the SHA-256, in lower-case hex, of the canonical JSON of the certificate without its signature member');
    const template = /\{ ?"document_sha256":"D","format":"service-custody\/v1" ?\}/.exec(text)![0].replace(/ /g, '');
    // Checked as the PDF says, with node:crypto alone: the certificate's real signature verifies.
    const { signature, ...unsigned } = certificate;
    const digest = sha256(canonicalJson(unsigned));
    const signed = Buffer.from(template.replace('"D"', `"${digest}"`), 'utf8');
    const { kty, crv, x } = key.jwk;
    expect(verify(null, signed, createPublicKey({ key: { kty, crv, x }, format: 'jwk' }), Buffer.from(signature.value, 'base64url'))).toBe(true);

    // How to run the verifier: the file from the repository, its SHA-256 checked, plain node, a saved key set.
    expect(text).toContain(`Take ${VERIFIER_PATH} from the service's source repository`);
    expect(text).toContain("Check that its SHA-256 equals the one published in the repository's README");
    expect(text).toContain('node verify-custody-certificate.mjs --jwks jwks.json certificate.pdf');
    expect(text).toContain('node verify-custody-certificate.mjs --jwks jwks.json certificate.json');
    expect(text).toContain(`Save the issuer's key set (JWKS) beforehand as jwks.json, from this address or from a source you trust: ${certificate.issuer.jwks_url}`);
    expect(text).not.toMatch(/npx verify-custody-certificate|over the SHA-256 of the RFC 8785 canonical JSON/);
  });

  it('shows a share certificate with the fingerprint of the key it was sealed to', async () => {
    const certificate = makeCertificate('share', 3);
    if (certificate.subject_kind !== 'share') throw new Error('fixture');
    const json = servedJson(certificate);
    const pdf = await renderCertificatePdf(certificate, json);
    expect(extractEmbeddedCertificate(pdf)).toBe(json);
    const { text } = await readPdf(pdf);
    expect(text).toContain(SHARE_ID);
    expect(squeezed(text)).toContain(certificate.share.sealed_to.fingerprint);
    for (const fact of certificate.timeline) expect(text.toLowerCase()).toContain(fact.event);
    expect(text).toContain('view limit reached');
  });

  it("says what the destruction deleted, and until when the table's encrypted backups still hold the ciphertext", async () => {
    const { text } = await readPdf(await renderCertificatePdf(makeCertificate('request', 8), servedJson(makeCertificate('request', 8))));
    const flat = spaced(text);
    expect(flat).not.toContain('no longer exists');
    expect(flat).toContain(
      "Final: the request has ended. Its credential's ciphertext was deleted from the service's table on 2026-03-09 10:03:31 UTC; " +
        "the table's encrypted point-in-time backups still hold it until 2026-03-16 10:03:31 UTC. Later certificates cannot add facts to this request.",
    );
    expect(flat).toContain("Deleted from the service's table 2026-03-09 10:03:31 UTC (chain seq 1062)");
    expect(flat).toContain("The credential's ciphertext in the service's table (for a request, the sealed envelope and its attachments).");
    expect(flat).toContain(
      "Point-in-time recovery keeps 7 days: the table's backups hold the ciphertext, encrypted under the table's key, until 2026-03-16 10:03:31 UTC. " +
        'Recovering it takes the rights both to restore the table and to use that key, and what it recovers is still sealed to the keys above.',
    );

    const share = await readPdf(await renderCertificatePdf(makeCertificate('share', 3), servedJson(makeCertificate('share', 3))));
    expect(spaced(share.text)).toContain(
      "Final: the share has ended. Its credential's ciphertext was deleted from the service's table on 2026-03-09 09:28:31 UTC; " +
        "the table's encrypted point-in-time backups still hold it until 2026-03-16 09:28:31 UTC.",
    );
  });

  it('says so when no backup holds the ciphertext: none kept, or none ever stored', async () => {
    const noBackups = makeCertificate('request', 8, 0);
    const local = spaced((await readPdf(await renderCertificatePdf(noBackups, servedJson(noBackups)))).text);
    expect(local).toContain(
      "Final: the request has ended. Its credential's ciphertext was deleted from the service's table on 2026-03-09 10:03:31 UTC; the service keeps no point-in-time backups of the table.",
    );
    expect(local).toContain('None: the service keeps no point-in-time backups of its table.');

    const neverStored = makeCertificate('request', 8, 7, false);
    const revoked = spaced((await readPdf(await renderCertificatePdf(neverStored, servedJson(neverStored)))).text);
    expect(revoked).toContain(
      "Final: the request has ended before any credential was submitted, so the service never held its ciphertext. Should the request be given a new link, later certificates will add that link's facts.",
    );
    expect(revoked).not.toContain('Later certificates cannot add facts');
    expect(revoked).toContain('None: nothing was submitted, so the service never held a ciphertext of this credential.');
    expect(revoked).not.toContain('until 2026-03-16');
    // Nothing was sealed: the keys are named as those a credential would have been sealed to.
    expect(revoked).toContain('Keys a credential would have been sealed to (none was submitted)');
    expect(revoked).not.toContain('Keys the credential was sealed to');
    expect(local).toContain('Keys the credential was sealed to');
  });

  it('claims no more than a certificate issued before the destruction stated its backups', async () => {
    const earlier = makeCertificate('request', 8, null);
    const flat = spaced((await readPdf(await renderCertificatePdf(earlier, servedJson(earlier)))).text);
    expect(flat).not.toContain('no longer exists');
    expect(flat).toContain('Final: the request has ended; on 2026-03-09 10:03:31 UTC the service deleted from its table any ciphertext of its credential.');
    expect(flat).toContain('Not stated by this certificate');
  });

  it('breaks a long timeline across pages and numbers them', async () => {
    const certificate = makeCertificate('request', 60);
    expect(certificate.timeline).toHaveLength(60);
    const json = servedJson(certificate);
    const pdf = await renderCertificatePdf(certificate, json);
    expect(extractEmbeddedCertificate(pdf)).toBe(json);
    const { pages, text } = await readPdf(pdf);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[1]).toContain(`Page 2 of ${pages.length}`);
    // Every fact's chain seq appears: no row was lost at a page break.
    for (const fact of certificate.timeline) expect(text).toContain(String(fact.seq));
  });

  it('gives the same bytes for the same inputs', async () => {
    const certificate = makeCertificate('request', 8);
    const json = servedJson(certificate);
    const [a, b] = await Promise.all([renderCertificatePdf(certificate, json), renderCertificatePdf(certificate, json)]);
    expect(a.equals(b)).toBe(true);
  });
});

// ---- Extraction errors, on PDFs made with pdfkit's Node build (no certificate renderer involved) ----

describe('extractEmbeddedCertificate', () => {
  it('refuses what is not a PDF', () => {
    expect(() => extractEmbeddedCertificate(Buffer.from('{"format":"service-custody/v1"}'))).toThrow(/Not a PDF/);
    expect(() => extractEmbeddedCertificate(new Uint8Array())).toThrow(/Not a PDF/);
  });

  it('says so when a PDF has no attachment', async () => {
    const pdf = await plainPdf();
    expect(extractEmbeddedFiles(pdf)).toEqual([]);
    expect(() => extractEmbeddedCertificate(pdf)).toThrow(/no embedded certificate/);
  });

  it('names the other attachments when none is JSON', async () => {
    const pdf = await plainPdf([{ name: 'notes.txt', body: 'hello' }]);
    expect(() => extractEmbeddedCertificate(pdf)).toThrow(/no embedded certificate.*notes\.txt/);
  });

  it('refuses a PDF carrying several JSON files', async () => {
    const pdf = await plainPdf([
      { name: 'a.json', body: '{"a":1}' },
      { name: 'b.json', body: '{"b":2}' },
    ]);
    expect(extractEmbeddedFiles(pdf).map((file) => file.name)).toEqual(['a.json', 'b.json']);
    expect(() => extractEmbeddedCertificate(pdf)).toThrow(/2 embedded \.json files/);
  });

  it('reads uncompressed attachments and notices a damaged one', async () => {
    const pdf = await plainPdf([{ name: 'c.json', body: '{"name":"Grüße"}' }], false);
    expect(extractEmbeddedCertificate(pdf)).toBe('{"name":"Grüße"}');
    const damaged = Buffer.from(pdf);
    const at = damaged.indexOf('"name"');
    damaged.write('"nome"', at, 'latin1');
    expect(() => extractEmbeddedCertificate(damaged)).toThrow(/damaged/);
  });
});
