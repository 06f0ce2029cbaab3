/**
 * The certificate renderer must survive the deployment bundling: the certificate function built as
 * the stack builds it (lib/certificate-bundle.ts: the stack's esbuild options, split so the PDF
 * renderer is a file of its own, pdfkit's font engine left out), run from a directory with no
 * node_modules and no package.json. pdfkit's Node build fails exactly there (its standard fonts
 * are a runtime require the bundler cannot see), which is why render-pdf.ts uses the browser build;
 * this test keeps it that way, keeps the renderer out of what a cold start loads, and checks that
 * the bundled renderer, without fontkit, makes the very bytes the source does.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCertificateFunction } from '../../lib/certificate-bundle.ts';
import { BUNDLE_BUDGET_BYTES, CERTIFICATE_BUNDLE_BUDGET_BYTES } from '../../bench/bundle-budget.ts';
import type { SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { renderCertificatePdf } from '../../lambdas/http/certificates/render-pdf.ts';
import { create } from '../../lambdas/http/certificates/no-fontkit.ts';
import { extractEmbeddedCertificate } from '../support/pdf-attachment-oracle.ts';

type Renderer = typeof import('../../lambdas/http/certificates/render-pdf.ts');

const hex = (seed: number) => seed.toString(16).padStart(2, '0').repeat(32);

const certificate: SignedCertificate = {
  format: 'service-custody/v1',
  certificate_id: 'cert_01JQBUNDLE',
  issued_at: '2026-03-09T17:02:44.512Z',
  issuer: { name: 'Credential Handoff', app_url: 'https://handoff.example.com', jwks_url: 'https://api.handoff.example.com/.well-known/jwks.json' },
  final: false,
  organisation: { id: 'org_01', name: 'Bundle Test Ltd' },
  client: null,
  ticket: null,
  timeline: [{ event: 'created', at: '2026-03-09T09:14:31.000Z', seq: 7, type: 'request.created', actor: { type: 'member', label: 'Ada' }, reason: null }],
  destruction: { destroyed: false, at: null, reason: null, seq: null },
  chain: {
    organisation_id: 'org_01',
    head: { seq: 7, hash: hex(7) },
    omitted_entries: 0,
    entries: [
      {
        seq: 7,
        type: 'request.created',
        occurred_at: '2026-03-09T09:14:31.000Z',
        prev_hash: hex(6),
        hash: hex(7),
        content: {
          orgId: 'org_01',
          seq: 7,
          type: 'request.created',
          occurredAt: '2026-03-09T09:14:31.000Z',
          prevHash: hex(6),
          actor: { type: 'member', label: 'Ada' },
          clientId: null,
          requestId: 'req_01',
          data: {},
        },
      },
    ],
  },
  subject_kind: 'request',
  request: {
    id: 'req_01',
    status: 'open',
    subject_name: 'Grace',
    requester: { membership_id: 'mem_01', name: 'Ada', email: 'ada@example.com' },
    recipients: [{ membership_id: 'mem_01', label: 'Ada', fingerprint: hex(171) }],
    commitment: { value: hex(205), computed_by: 'server' },
  },
  signature: { alg: 'Ed25519', kid: 'kid-bundle-test', value: 'c2lnbmF0dXJl' },
};

const outdir = mkdtempSync(join(tmpdir(), 'certificate-function-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The files of the certificate function's asset, by name. */
let files: string[];
let index: string;
/** The renderer's file: the one index.mjs imports dynamically. */
let rendererFile: string;

beforeAll(async () => {
  await buildCertificateFunction(outdir);
  files = readdirSync(outdir).sort();
  index = readFileSync(join(outdir, 'index.mjs'), 'utf8');
  const dynamic = [...index.matchAll(/\bimport\("\.\/([^"]+\.mjs)"\)/g)].map((match) => match[1]);
  expect(dynamic).toHaveLength(1);
  rendererFile = dynamic[0]!;
}, 60_000);

describe('the certificate function bundled as the stack bundles it', () => {
  it('keeps the PDF renderer out of index.mjs, in a file of the asset that only a PDF loads', () => {
    expect(files).toContain('index.mjs');
    expect(files).toContain(rendererFile);
    expect(index).not.toContain('PDFKit');
    expect(readFileSync(join(outdir, rendererFile), 'utf8')).toContain('PDFKit');
    // What index.mjs imports statically (shared code) exists beside it and carries no pdfkit either.
    for (const shared of [...index.matchAll(/\bfrom"\.\/([^"]+\.mjs)"/g)].map((match) => match[1]!)) {
      expect(files, shared).toContain(shared);
      expect(readFileSync(join(outdir, shared), 'utf8'), shared).not.toContain('PDFKit');
    }
  });

  it(`stays within ${CERTIFICATE_BUNDLE_BUDGET_BYTES / 1000} kB, index.mjs within ${BUNDLE_BUDGET_BYTES / 1000} kB`, () => {
    const total = files.reduce((sum, file) => sum + statSync(join(outdir, file)).size, 0);
    expect(total).toBeLessThanOrEqual(CERTIFICATE_BUNDLE_BUDGET_BYTES);
    expect(statSync(join(outdir, 'index.mjs')).size).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
  });

  it('renders from its renderer file with nothing beside it: the very bytes the source renderer makes', async () => {
    // The Node build's runtime font lookup must not have been bundled.
    expect(readFileSync(join(outdir, rendererFile), 'utf8')).not.toContain('#standard-fonts');
    const { renderCertificatePdf: bundled } = (await import(pathToFileURL(join(outdir, rendererFile)).href)) as Renderer;
    const json = JSON.stringify(certificate);
    const pdf = await bundled(certificate, json);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(extractEmbeddedCertificate(pdf)).toBe(json);
    expect(pdf.equals(await renderCertificatePdf(certificate, json))).toBe(true);
  });

  it('leaves fontkit out, and its stand-in fails loudly if a font file is ever embedded', () => {
    // fontkit's own message for a font it cannot read: present whenever fontkit is bundled.
    for (const file of files) expect(readFileSync(join(outdir, file), 'utf8'), file).not.toContain('Unknown font format');
    expect(() => create()).toThrow(/standard PDF fonts only/);
  });
});
