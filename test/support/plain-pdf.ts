/**
 * PDFs made by pdfkit's Node build, with no certificate renderer involved, for the tests of what
 * reads a certificate out of a PDF: a page of text and the files given, attached as JSON.
 */
import PDFDocument from 'pdfkit';

/** A PDF with `attach` embedded (compressed unless told otherwise), its creation date fixed. */
export const plainPdf = (attach: Array<{ name: string; body: string }> = [], compress = true) =>
  new Promise<Buffer>((resolve) => {
    const doc = new PDFDocument({ compress, info: { CreationDate: new Date('2026-01-01T00:00:00Z') } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    for (const file of attach) doc.file(Buffer.from(file.body, 'utf8'), { name: file.name, type: 'application/json' });
    doc.text('Not a certificate');
    doc.end();
  });
