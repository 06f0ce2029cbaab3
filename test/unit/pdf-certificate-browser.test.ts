import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { renderCertificatePdf } from '../../lambdas/http/certificates/render-pdf.ts';
import { certificateFromPdf, isPdf } from '../../web/app/pdf-certificate.ts';
import { makeCertificate, makeChain, makeKey, signCertificate } from '../support/custody-fixtures.ts';

/** The Verify page's PDF reader (web/app/pdf-certificate.ts), on the PDFs the service renders. */
describe('the browser PDF reader', () => {
  it('takes the exact signed JSON out of a certificate PDF', async () => {
    const certificate = signCertificate(makeCertificate(makeChain(5)), await makeKey());
    const json = canonicalJson(certificate);
    const pdf = new Uint8Array(await renderCertificatePdf(certificate, json));
    expect(isPdf(pdf)).toBe(true);
    expect(await certificateFromPdf(pdf)).toBe(json);
  });

  it('says why when there is nothing to read', async () => {
    await expect(certificateFromPdf(new TextEncoder().encode('{"format":1}'))).rejects.toThrow('not a PDF');
    const empty = new TextEncoder().encode('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
    await expect(certificateFromPdf(empty)).rejects.toThrow('no certificate attached');
  });

  it('reads an indirect /Length and refuses a damaged attachment', async () => {
    const data = deflateSync(Buffer.from('{"format":"service-custody/v1"}'));
    const make = (size: number) =>
      Buffer.concat([
        Buffer.from(`%PDF-1.7\n4 0 obj\n<< /Type /EmbeddedFile /Params << /Size ${size} >> /Length 5 0 R /Filter /FlateDecode >>\nstream\n`, 'latin1'),
        data,
        Buffer.from(`\nendstream\nendobj\n5 0 obj\n${data.length}\nendobj\ntrailer\n<< >>\n%%EOF\n`, 'latin1'),
      ]);
    expect(await certificateFromPdf(new Uint8Array(make(31)))).toBe('{"format":"service-custody/v1"}');
    await expect(certificateFromPdf(new Uint8Array(make(40)))).rejects.toThrow('damaged');
  });
});
