/**
 * The certificate renderer must survive the deployment bundling: esbuild with the stack's own
 * options (lib/api-functions.ts BUNDLING, as lib/esbuild-options.ts translates them) into one
 * file, run from a directory with no node_modules and no package.json. pdfkit's Node build fails
 * exactly there (its standard fonts are a runtime require the bundler cannot see), which is why
 * render-pdf.ts uses the browser build; this test keeps it that way.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptionsOfStack } from '../../lib/esbuild-options.ts';
import type { SignedCertificate } from '../../lambdas/core/custody/document.ts';
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

const outdir = mkdtempSync(join(tmpdir(), 'certificate-pdf-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('render-pdf.ts bundled as the stack bundles functions', () => {
  it('renders from a single esbuild file with nothing beside it', async () => {
    const outfile = join(outdir, 'index.mjs');
    await build({ ...esbuildOptionsOfStack(), entryPoints: [fileURLToPath(new URL('../../lambdas/http/certificates/render-pdf.ts', import.meta.url))], outfile });
    expect(readdirSync(outdir)).toEqual(['index.mjs']);
    // The Node build's runtime font lookup must not have been bundled.
    expect(readFileSync(outfile, 'utf8')).not.toContain('#standard-fonts');

    const { renderCertificatePdf } = (await import(pathToFileURL(outfile).href)) as Renderer;
    const json = JSON.stringify(certificate);
    const pdf = await renderCertificatePdf(certificate, json);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(extractEmbeddedCertificate(pdf)).toBe(json);
  });
});
