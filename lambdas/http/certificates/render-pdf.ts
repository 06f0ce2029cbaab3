/// <reference types="pdfkit" />
/**
 * The custody certificate as a PDF for people: the same facts as the signed `service-custody/v1`
 * JSON, laid out on A4, with that exact JSON attached so the PDF alone can be verified (the
 * single-file verifier, tools/verify-custody-certificate.mjs, extracts it). The JSON is the
 * certificate; this is a reading of it, and says so. Its "How to verify" says what is signed and how
 * to run that verifier without trusting a package registry or the service.
 *
 * Why pdfkit's browser build: pdfkit's Node build loads the standard-font metrics lazily with
 * `createRequire(import.meta.url)('#standard-fonts/…')`, a runtime lookup in pdfkit's own
 * package.json that esbuild cannot see; bundled into one file it fails with "Cannot find module".
 * The browser build takes the metrics as plain imports (registered below), which esbuild inlines,
 * and needs no file system, so this module runs the same under tsx/vitest and as one bundled file.
 * The build is not in pdfkit's `exports`, hence the path into node_modules; @types/pdfkit
 * describes its API (the 0.20 additions, `registerStdFonts` and the font modules, are untyped).
 */
import { createHash } from 'node:crypto';
// @ts-expect-error -- no declaration file for the browser build (see above); typed by PDFDocumentClass below.
import * as pdfkitBrowser from '../../../node_modules/pdfkit/js/pdfkit.browser.mjs';
// @ts-expect-error -- pdfkit ships no types for its standard-font metric modules.
import Courier from 'pdfkit/standard-fonts/Courier';
// @ts-expect-error -- as above.
import Helvetica from 'pdfkit/standard-fonts/Helvetica';
// @ts-expect-error -- as above.
import HelveticaBold from 'pdfkit/standard-fonts/HelveticaBold';
import type { SignedCertificate } from '#core/custody/document.ts';
import { signingInput } from '#core/custody/signing-input.ts';
import { type Doc, MARGIN, INK, MUTED, ACCENT, RULE, SANS, SANS_BOLD, MONO, type Run, printable, grouped, shortHash, when, capitalised, partyRuns, contentWidth, draw, heading, field, paragraph, table, band } from './pdf-layout.ts';

const PDFDocumentClass = (pdfkitBrowser as { default: new (options?: PDFKit.PDFDocumentOptions) => Doc }).default;
(pdfkitBrowser as { registerStdFonts: (...fonts: unknown[]) => void }).registerStdFonts(Helvetica, HelveticaBold, Courier);

/** The attachment's name, also what the verifier looks for (any `.json`). */
export const certificateFileName = (certificate: SignedCertificate) =>
  `custody-certificate-${certificate.certificate_id.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`;

/**
 * The verifier an auditor runs: one file of plain JavaScript in the service's repository, fetched
 * from there and checked against the SHA-256 the README publishes. Never a package name for npx,
 * which anywhere but in a clone would run whatever the public registry holds under that name.
 */
export const VERIFIER_PATH = 'tools/verify-custody-certificate.mjs';
export const VERIFY_COMMAND = 'node verify-custody-certificate.mjs --jwks jwks.json <file>';

/**
 * The bytes the signature is over, with D standing for the digest: made by the signer's own
 * signingInput, so the PDF cannot describe other bytes than are signed, and shown whole, so a
 * reader who computes D can rebuild them exactly.
 */
export const SIGNED_BYTES_TEMPLATE = signingInput('D');

// ---- Page geometry and style (A4 in points) ----
// ---- The certificate's sections ----
const titleBlock = (doc: Doc, certificate: SignedCertificate) => {
  const subject = certificate.subject_kind === 'request' ? `Request ${certificate.request.id}` : `Share ${certificate.share.id}`;
  draw(doc, { text: 'Custody certificate', font: SANS_BOLD, size: 22, color: ACCENT }, MARGIN.left, MARGIN.top, contentWidth(doc));
  doc.y += 2;
  draw(doc, { text: subject, size: 13, color: INK }, MARGIN.left, doc.y, contentWidth(doc));
  doc.y += 2;
  draw(doc, { text: `Issued ${when(certificate.issued_at)} UTC by ${certificate.issuer.name}  ·  certificate ${certificate.certificate_id}`, size: 9, color: MUTED }, MARGIN.left, doc.y, contentWidth(doc));
  doc.y += 10;
  const kind = certificate.subject_kind;
  band(
    doc,
    certificate.final
      ? { text: `${finalStatement(certificate)} ${laterFacts(certificate)}`, font: SANS_BOLD, size: 9.5, color: '#1e5b2c' }
      : { text: `Not final: the ${kind} has not ended, so its credential may still exist. A later certificate may add facts.`, font: SANS_BOLD, size: 9.5, color: '#7a4300' },
    certificate.final ? '#e6f2e8' : '#fdf1e1',
  );
};

/**
 * Whether a later certificate can say more: a request that ended before anything was submitted
 * (revoked, or expired unsubmitted) can still be given a new link, which starts its custody again.
 */
const laterFacts = (certificate: SignedCertificate) =>
  certificate.subject_kind === 'request' && coverageOf(certificate)?.stored === false
    ? "Should the request be given a new link, later certificates will add that link's facts."
    : `Later certificates cannot add facts to this ${certificate.subject_kind}.`;

/** What the destruction says it covers, where this certificate says it (certificates issued before it did not). */
const coverageOf = (certificate: SignedCertificate) => {
  const { ciphertext_stored: stored, backups } = certificate.destruction;
  return stored === undefined || backups === undefined ? null : { stored, backups };
};

const days = (n: number) => `${n} ${n === 1 ? 'day' : 'days'}`;

/** A date the backups hold the ciphertext until: still ahead when the certificate was issued, or already past. */
const holdUntil = (certificate: SignedCertificate, until: string) => `${until > certificate.issued_at ? 'still hold' : 'held'} it until ${when(until)} UTC`;

/**
 * What an ended request or share leaves in the service: deletion takes the ciphertext out of the
 * table, while the table's point-in-time backups keep it for their recovery period.
 */
const finalStatement = (certificate: SignedCertificate) => {
  const kind = certificate.subject_kind;
  const destruction = certificate.destruction;
  const coverage = coverageOf(certificate);
  if (!coverage) return `Final: the ${kind} has ended; on ${when(destruction.at)} UTC the service deleted from its table any ciphertext of its credential.`;
  if (!coverage.stored) return `Final: the ${kind} has ended before any credential was submitted, so the service never held its ciphertext.`;
  const deleted = `Final: the ${kind} has ended. Its credential's ciphertext was deleted from the service's table on ${when(destruction.at)} UTC;`;
  const until = coverage.backups.ciphertext_restorable_until;
  return until === null
    ? `${deleted} the service keeps no point-in-time backups of the table.`
    : `${deleted} the table's encrypted point-in-time backups ${holdUntil(certificate, until)}.`;
};

const partiesSection = (doc: Doc, certificate: SignedCertificate) => {
  heading(doc, 'Parties');
  field(doc, 'Organisation', [{ text: certificate.organisation.name }, { text: certificate.organisation.id, font: MONO, size: 8, color: MUTED }]);
  field(doc, 'Client', certificate.client ? [{ text: certificate.client.name }, { text: certificate.client.id, font: MONO, size: 8, color: MUTED }] : { text: 'None' });
  const ticket = certificate.ticket;
  const ticketName = ticket && [ticket.ref, ticket.external_id && ticket.external_id !== ticket.ref ? `(external id ${ticket.external_id})` : null].filter(Boolean).join(' ');
  field(doc, 'Ticket', ticket ? [{ text: ticketName || 'Linked ticket' }, ...(ticket.url ? [{ text: ticket.url, size: 8, color: MUTED } as Run] : [])] : { text: 'None' });
  if (certificate.subject_kind === 'request') {
    const request = certificate.request;
    field(doc, 'Requested by', partyRuns(request.requester));
    field(doc, 'Subject', { text: request.subject_name });
    field(doc, 'Request status', { text: request.status });
  } else {
    const share = certificate.share;
    field(doc, 'Created by', partyRuns(share.created_by));
    field(doc, 'Share status', { text: share.status });
    field(doc, 'Views', { text: `${share.views} of ${share.view_limit} allowed; expires ${when(share.expires_at)} UTC` });
  }
};

const keysSection = (doc: Doc, certificate: SignedCertificate) => {
  // Before a submission nothing was sealed: the keys are those a credential would have been sealed to.
  heading(doc, certificate.destruction.ciphertext_stored === false ? 'Keys a credential would have been sealed to (none was submitted)' : 'Keys the credential was sealed to');
  if (certificate.subject_kind === 'share') {
    field(doc, 'One-time recipient key', { text: grouped(certificate.share.sealed_to.fingerprint), font: MONO, size: 9 });
    return;
  }
  const request = certificate.request;
  if (request.recipients.length === 0) field(doc, 'Recipients', { text: 'None recorded' });
  request.recipients.forEach((recipient, i) => {
    const who = recipient.label ?? `Recipient ${i + 1}`;
    field(doc, who, [
      { text: grouped(recipient.fingerprint), font: MONO, size: 9 },
      ...(recipient.membership_id ? [{ text: `member ${recipient.membership_id}`, size: 8, color: MUTED } as Run] : []),
    ]);
  });
  paragraph(doc, { text: 'Fingerprints are the SHA-256 of each identity key (SPKI), as the app shows them.', size: 8, color: MUTED });
  field(doc, 'Commitment', [
    { text: grouped(request.commitment.value), font: MONO, size: 9 },
    { text: request.commitment.computed_by === 'browser' ? "computed in the requester's browser" : 'computed by the service', size: 8, color: MUTED },
  ]);
};

const timelineSection = (doc: Doc, certificate: SignedCertificate) => {
  heading(doc, 'Custody timeline');
  const rows = certificate.timeline.map((fact) => [
    when(fact.at),
    capitalised(fact.event),
    fact.actor.label ? `${fact.actor.label} (${fact.actor.type})` : fact.actor.type,
    fact.reason ?? '',
    String(fact.seq),
  ]);
  table(
    doc,
    [
      { header: 'When (UTC)', width: 98 },
      { header: 'Event', width: 96 },
      { header: 'By', width: 128 },
      { header: 'Reason', width: 113 },
      { header: 'Chain seq', width: 48.28 },
    ],
    rows,
  );
};

const destructionSection = (doc: Doc, certificate: SignedCertificate) => {
  heading(doc, 'Destruction');
  const destruction = certificate.destruction;
  const coverage = coverageOf(certificate);
  const request = certificate.subject_kind === 'request';
  const chainSeq = destruction.seq !== null ? ` (chain seq ${destruction.seq})` : '';
  if (coverage) {
    field(doc, 'Covers', {
      text:
        `The credential's ciphertext in the service's table (${request ? 'for a request, the sealed envelope and its attachments' : 'for a share, its sealed envelope'}). ` +
        "Not the copies in the table's backups (below), nor what a recipient saw after revealing it.",
    });
  }
  if (coverage && !coverage.stored) {
    field(doc, 'Stored ciphertext', { text: 'None: nothing was submitted, so the service never held a ciphertext of this credential.', font: SANS_BOLD });
    if (destruction.destroyed) field(doc, 'Ended', { text: `${when(destruction.at)} UTC${chainSeq}` });
  } else if (destruction.destroyed) {
    field(doc, 'Stored ciphertext', { text: `Deleted from the service's table ${when(destruction.at)} UTC${chainSeq}`, font: SANS_BOLD });
  } else {
    field(doc, 'Stored ciphertext', { text: "Not deleted: the service's table still holds the encrypted credential.", font: SANS_BOLD });
  }
  if (destruction.destroyed && destruction.reason) field(doc, 'Reason', { text: destruction.reason });
  field(doc, 'Backups', { text: coverage ? backupsText(certificate, coverage) : 'Not stated by this certificate.' });
};

/** How long the table's point-in-time backups hold the ciphertext, and what recovering it would take. */
const backupsText = (certificate: SignedCertificate, coverage: NonNullable<ReturnType<typeof coverageOf>>) => {
  const period = coverage.backups.point_in_time_recovery_days;
  const until = coverage.backups.ciphertext_restorable_until;
  if (period === 0) return 'None: the service keeps no point-in-time backups of its table.';
  const keeps = `Point-in-time recovery keeps ${days(period)}`;
  if (!coverage.stored) {
    return certificate.destruction.destroyed
      ? `${keeps}; no backup holds a ciphertext of this credential, as none was stored.`
      : `${keeps}: a submitted credential's ciphertext stays in the table's encrypted backups for ${days(period)} after its deletion.`;
  }
  if (until === null) return `${keeps}: once deleted, the ciphertext stays in the table's encrypted backups for ${days(period)} more.`;
  const sealedTo = certificate.subject_kind === 'request' ? 'the keys above' : 'the key above';
  return (
    `${keeps}: the table's backups ${until > certificate.issued_at ? 'hold' : 'held'} the ciphertext, encrypted under the table's key, until ${when(until)} UTC. ` +
    `Recovering it takes the rights both to restore the table and to use that key, and what it recovers is still sealed to ${sealedTo}.`
  );
};

const chainSection = (doc: Doc, certificate: SignedCertificate) => {
  heading(doc, 'Audit chain');
  const chain = certificate.chain;
  field(doc, 'Organisation chain', { text: chain.organisation_id, font: MONO, size: 9 });
  field(doc, 'Head when issued', [{ text: `seq ${chain.head.seq}` }, { text: grouped(chain.head.hash), font: MONO, size: 8 }]);
  paragraph(doc, { text: 'Each entry below is carried whole in the JSON; its hash is the SHA-256 of the entry’s RFC 8785 canonical JSON and links to the previous entry.', size: 8, color: MUTED });
  table(
    doc,
    [
      { header: 'Seq', width: 40 },
      { header: 'Type', width: 143.28 },
      { header: 'Occurred (UTC)', width: 100 },
      { header: 'Previous hash', width: 100, mono: true },
      { header: 'Hash', width: 100, mono: true },
    ],
    chain.entries.map((entry) => [String(entry.seq), entry.type, when(entry.occurred_at), shortHash(entry.prev_hash), shortHash(entry.hash)]),
  );
  if (chain.omitted_entries > 0) {
    paragraph(doc, {
      text: `${chain.omitted_entries} older routine ${chain.omitted_entries === 1 ? 'entry' : 'entries'} (repeated ticket statuses, verification attempts, emailed codes) not carried; every entry that changed custody is.`,
      size: 8,
      color: MUTED,
    });
  }
};

const signatureSection = (doc: Doc, certificate: SignedCertificate, jsonSha256: string) => {
  heading(doc, 'Signature');
  field(doc, 'Format', { text: certificate.format, font: MONO, size: 9 });
  field(doc, 'Algorithm', { text: certificate.signature.alg, font: MONO, size: 9 });
  field(doc, 'Signing key id (kid)', { text: certificate.signature.kid, font: MONO, size: 9 });
  field(doc, 'SHA-256 of the JSON', [{ text: grouped(jsonSha256), font: MONO, size: 9 }, { text: `of ${certificateFileName(certificate)}, attached to this PDF`, size: 8, color: MUTED }]);
};

const verifySection = (doc: Doc, certificate: SignedCertificate) => {
  heading(doc, 'How to verify');
  const file = certificateFileName(certificate);
  paragraph(doc, {
    text:
      `What is signed. The attached file ${file} is the certificate: the RFC 8785 (JCS) canonical JSON of the signed document. ` +
      `Its signature.value is an Ed25519 signature (signature.alg ${certificate.signature.alg}), base64url-encoded without padding, by the key whose ` +
      'RFC 7638 thumbprint is signature.kid (the key id above). It signs the UTF-8 bytes of this canonical JSON, where D is the SHA-256, ' +
      'in lower-case hex, of the canonical JSON of the certificate without its signature member (not the SHA-256 of the file ' +
      'above, which includes the signature):',
    size: 9,
  });
  band(doc, { text: SIGNED_BYTES_TEMPLATE, font: MONO, size: 9 }, '#eef1f5');
  paragraph(doc, { text: 'Check it without trusting a package registry or this service:', size: 9.5 });
  paragraph(doc, { text: "1. Save the issuer's key set (JWKS) beforehand as jwks.json, from this address or from a source you trust:", size: 9.5 });
  // On a line of its own, so the address is never broken at one of its slashes.
  band(doc, { text: certificate.issuer.jwks_url, font: MONO, size: 9 }, '#eef1f5');
  paragraph(doc, {
    text:
      `2. Take ${VERIFIER_PATH} from the service's source repository: one file of plain JavaScript that imports only ` +
      "Node's built-in modules. Check that its SHA-256 equals the one published in the repository's README (Your first handoff).",
    size: 9.5,
  });
  paragraph(doc, { text: '3. Run it with Node.js 20 or later, on this PDF saved as certificate.pdf (it verifies the attached JSON), or on the attached JSON saved as certificate.json:', size: 9.5 });
  // Short file names, so each command fits on its line and none is broken at one of its spaces.
  band(doc, { text: 'node verify-custody-certificate.mjs --jwks jwks.json certificate.pdf\nnode verify-custody-certificate.mjs --jwks jwks.json certificate.json', font: MONO, size: 9 }, '#eef1f5');
  paragraph(doc, {
    text:
      'Passing that address as --jwks instead fetches the keys when the verifier runs, which trusts the service as it answers then. ' +
      'Do not run the verifier through npx: outside a clone of the repository, npx fetches whatever package of that name the public registry holds.',
    size: 8.5,
    color: MUTED,
  });
  paragraph(doc, {
    text:
      'The SHA-256 above identifies the exact JSON this PDF was made from. The signed JSON is the certificate and this PDF is a reading of it: where they differ, the JSON counts. ' +
      'This PDF’s fonts show Latin letters only: another letter is shown without its accent where that leaves a Latin one (an r with a caron as r), and as ? otherwise; the JSON has the exact text.',
    size: 8.5,
    color: MUTED,
  });
};

/** Header and footer on every page, written last so the footer knows the page count. */
const decoratePages = (doc: Doc, certificate: SignedCertificate) => {
  const { start, count } = doc.bufferedPageRange();
  for (let i = 0; i < count; i++) {
    doc.switchToPage(start + i);
    const width = contentWidth(doc);
    const right = MARGIN.left + width;
    // Text below the bottom margin would make pdfkit start a new page; lift the margin meanwhile.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    draw(doc, { text: 'Custody certificate', font: SANS_BOLD, size: 8.5, color: ACCENT }, MARGIN.left, 36, width / 2);
    doc.font(SANS).fontSize(8.5).fillColor(MUTED).text(printable(certificate.issuer.name), MARGIN.left + width / 2, 36, { width: width / 2, align: 'right' });
    doc.moveTo(MARGIN.left, 50).lineTo(right, 50).lineWidth(0.75).strokeColor(ACCENT).stroke();
    const footerY = doc.page.height - MARGIN.bottom + 22;
    doc.moveTo(MARGIN.left, footerY - 6).lineTo(right, footerY - 6).lineWidth(0.5).strokeColor(RULE).stroke();
    doc.font(SANS).fontSize(8).fillColor(MUTED).text(printable(`${certificate.certificate_id} · ${certificate.format}`), MARGIN.left, footerY, { width: width * 0.7, lineBreak: false });
    doc.text(`Page ${i + 1} of ${count}`, MARGIN.left + width * 0.7, footerY, { width: width * 0.3, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
};

/**
 * Renders `certificate` as a PDF with `signedJson` (the exact JSON text the service serves for it)
 * attached. The bytes depend only on the inputs: dates come from `issued_at`.
 */
export const renderCertificatePdf = (certificate: SignedCertificate, signedJson: string): Promise<Buffer> => {
  const json = Buffer.from(signedJson, 'utf8');
  const jsonSha256 = createHash('sha256').update(json).digest('hex');
  const issued = new Date(certificate.issued_at);
  const subject = certificate.subject_kind === 'request' ? `request ${certificate.request.id}` : `share ${certificate.share.id}`;
  return new Promise<Buffer>((resolve, reject) => {
    try {
      const doc = new PDFDocumentClass({
        size: 'A4',
        margins: MARGIN,
        bufferPages: true,
        pdfVersion: '1.7',
        lang: 'en',
        displayTitle: true,
        info: {
          Title: `Custody certificate: ${subject}`,
          Subject: `${certificate.format} certificate ${certificate.certificate_id} for ${subject} of ${certificate.organisation.name}`,
          Author: certificate.issuer.name,
          Creator: certificate.issuer.name,
          Keywords: `custody certificate, ${certificate.format}, ${certificate.certificate_id}`,
          CreationDate: issued,
          ModDate: issued,
        },
      });
      const chunks: Uint8Array[] = [];
      doc.on('data', (chunk: Uint8Array) => chunks.push(chunk));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      doc.on('error', reject);

      // AFRelationship /Data: the attachment is the data this page presents (PDF 2.0, PDF/A-3).
      doc.file(json, {
        name: certificateFileName(certificate),
        type: 'application/json',
        description: `Signed custody certificate (${certificate.format}). Verify with ${VERIFIER_PATH} from the service's repository: ${VERIFY_COMMAND}`,
        creationDate: issued,
        modifiedDate: issued,
        relationship: 'Data',
      } as PDFKit.Mixins.PDFAttachmentOptions);

      titleBlock(doc, certificate);
      partiesSection(doc, certificate);
      keysSection(doc, certificate);
      timelineSection(doc, certificate);
      destructionSection(doc, certificate);
      chainSection(doc, certificate);
      signatureSection(doc, certificate, jsonSha256);
      verifySection(doc, certificate);
      decoratePages(doc, certificate);
      doc.end();
    } catch (error) {
      reject(error);
    }
  });
};
