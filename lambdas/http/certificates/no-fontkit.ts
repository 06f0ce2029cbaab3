/**
 * Stands in for fontkit, pdfkit's font engine, in the certificate function's bundle (the stack's
 * bundling aliases `fontkit` to this module, lib/certificate-bundle.ts). pdfkit calls fontkit's
 * `create`, its only import from it, to embed a font file (PDFFontFactory.open); the certificate
 * draws with standard PDF fonts only (Helvetica, Helvetica-Bold, Courier, render-pdf.ts), which
 * pdfkit lays out from their bundled metrics without fontkit. Leaving fontkit out takes about
 * 0.7 MB off the bundle; a font file embedded some day fails loudly here instead of rendering.
 */
export const create = (): never => {
  throw new Error('fontkit is not bundled: the certificate PDF can use the standard PDF fonts only (lambdas/http/certificates/no-fontkit.ts)');
};
