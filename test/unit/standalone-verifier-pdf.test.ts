/**
 * tools/verify-custody-certificate.mjs, the single file auditors run, reads the certificate a PDF
 * embeds as the service's reader does: from the service's own PDF the same text, which verifies;
 * from other PDFs (none, several or other attachments, uncompressed, damaged, in an object
 * stream, encrypted, not a PDF) the same text or the same reason.
 */
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { renderCertificatePdf } from '../../lambdas/http/certificates/render-pdf.ts';
import { certificateSpec, JWKS, said, signed, thrown } from '../support/generated-certificates.ts';
import { extractEmbeddedCertificate } from '../support/pdf-attachment-oracle.ts';
import { plainPdf } from '../support/plain-pdf.ts';
import { loadStandaloneVerifier } from '../support/standalone-verifier.ts';

const standalone = await loadStandaloneVerifier();

describe('the certificate a PDF embeds', () => {
  /** A hand-written PDF whose file specification sits in a compressed object stream, as re-saving viewers write. */
  const objectStreamPdf = (body: string, encrypted = false) => {
    const packed = Buffer.from('2 0 << /Type /Filespec /F (packed.json) /EF << /F 3 0 R >> >>', 'latin1');
    const deflated = deflateSync(packed);
    return Buffer.concat([
      Buffer.from(`%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${deflated.length} >>\nstream\n`, 'latin1'),
      deflated,
      Buffer.from(`\nendstream\nendobj\n3 0 obj\n<< /Type /EmbeddedFile /Length ${Buffer.byteLength(body)} >>\nstream\n`, 'latin1'),
      Buffer.from(body, 'utf8'),
      Buffer.from(`\nendstream\nendobj\ntrailer\n<< /Size 4 ${encrypted ? '/Encrypt 9 0 R ' : ''}>>\n%%EOF\n`, 'latin1'),
    ]);
  };

  test('the service\'s PDF: the same embedded text, which verifies', async () => {
    const spec = fc.sample(certificateSpec, { numRuns: 1, seed: 11 })[0];
    const certificate = signed({ ...spec, signer: 'current', kind: 'request' });
    const text = canonicalJson(certificate);
    const pdf = await renderCertificatePdf(certificate, text);
    expect(standalone.extractEmbeddedCertificate(pdf)).toBe(extractEmbeddedCertificate(pdf));
    expect(standalone.extractEmbeddedCertificate(pdf)).toBe(text);
    expect(said(standalone.verifyCertificateText(standalone.extractEmbeddedCertificate(pdf), JWKS))).toMatch(/^valid: request /);
  });

  test('other PDFs: the same text or the same reason', async () => {
    const uncompressed = await plainPdf([{ name: 'c.json', body: '{"name":"Grüße"}' }], false);
    const damaged = Buffer.from(uncompressed);
    damaged.write('"nome"', damaged.indexOf('"name"'), 'latin1');
    const pdfs = [
      await plainPdf([]),
      await plainPdf([{ name: 'notes.txt', body: 'hello' }]),
      await plainPdf([{ name: 'a.json', body: '{"a":1}' }, { name: 'b.json', body: '{"b":2}' }]),
      await plainPdf([{ name: 'only.JSON', body: '{"c":3}' }]),
      uncompressed,
      damaged,
      objectStreamPdf('{"packed":true}'),
      objectStreamPdf('{"packed":true}', true),
      Buffer.from('{"format":"service-custody/v1"}'),
      new Uint8Array(),
    ];
    const outcomes = pdfs.map((pdf) => thrown(() => standalone.extractEmbeddedCertificate(pdf)));
    expect(outcomes).toEqual(pdfs.map((pdf) => thrown(() => extractEmbeddedCertificate(pdf))));
    // Each case says something of its own: the comparison above is not of ten identical failures.
    expect(outcomes.map((outcome) => outcome.value ?? outcome.error)).toEqual([
      expect.stringMatching(/no embedded certificate: no \.json file is attached$/),
      expect.stringMatching(/no embedded certificate.*notes\.txt/),
      expect.stringMatching(/2 embedded \.json files/),
      '{"c":3}',
      '{"name":"Grüße"}',
      expect.stringMatching(/damaged/),
      '{"packed":true}',
      expect.stringMatching(/encrypted/),
      expect.stringMatching(/^Not a PDF/),
      expect.stringMatching(/^Not a PDF/),
    ]);
  });
});
