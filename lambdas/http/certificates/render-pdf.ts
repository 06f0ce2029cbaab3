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
import type { CertificateParty, SignedCertificate } from '#core/custody/document.ts';
import { signingInput } from '#core/custody/signing-input.ts';

type Doc = PDFKit.PDFDocument;
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
const MARGIN = { top: 72, bottom: 64, left: 56, right: 56 };
const INK = '#1a1a1a';
const MUTED = '#5f6b7a';
const ACCENT = '#1f3a5f';
const RULE = '#c9d1db';
const ZEBRA = '#f3f6f9';
const LABEL_WIDTH = 138;
const SANS = 'Helvetica';
const SANS_BOLD = 'Helvetica-Bold';
const MONO = 'Courier';

type Font = typeof SANS | typeof SANS_BOLD | typeof MONO;
interface Run {
  text: string;
  font?: Font;
  size?: number;
  color?: string;
}

// ---- Text the standard fonts can show ----
/** WinAnsi's characters outside Latin-1: the standard fonts can show these and Latin-1, nothing else. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Other characters become `?` rather than an invisible glyph; the JSON keeps the real text. */
const printable = (text: string) =>
  Array.from(text.normalize('NFC'), (char) => {
    const code = char.codePointAt(0)!;
    if (char === '\n') return char; // kept: grouped hex breaks its lines so
    if (code < 0x20 || (code >= 0x7f && code < 0xa0 && !WIN_ANSI_EXTRA.has(char))) return ' ';
    return code <= 0xff || WIN_ANSI_EXTRA.has(char) ? char : '?';
  }).join('');

const clip = (text: string, max = 400) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Hex in groups of 4, eight groups a line, so a 64-character fingerprint reads as two even lines
 * and any wrap falls between groups, never inside one.
 */
const grouped = (value: string) => {
  if (!/^[0-9a-f]+$/i.test(value)) return value;
  const lines = value.match(/.{1,32}/g)!.map((line) => line.match(/.{1,4}/g)!.join(' '));
  return lines.join('\n');
};

const shortHash = (hash: string) => (hash.length > 16 ? `${hash.slice(0, 16)}…` : hash);

/** `2026-01-05T09:01:00.000Z` → `2026-01-05 09:01:00` (UTC); text that is not a date is shown as is. */
const when = (iso: string | null) => {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 19).replace('T', ' ');
};

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const partyRuns = (party: CertificateParty): Run[] => {
  const name = [party.name, party.email && `<${party.email}>`].filter(Boolean).join(' ') || 'Unknown';
  return [{ text: name }, ...(party.membership_id ? [{ text: party.membership_id, font: MONO, size: 8, color: MUTED } as Run] : [])];
};

// ---- Drawing primitives; each keeps doc.y as the next free line ----
const maxY = (doc: Doc) => doc.page.height - MARGIN.bottom;
const contentWidth = (doc: Doc) => doc.page.width - MARGIN.left - MARGIN.right;

const heightOf = (doc: Doc, run: Run, width: number) =>
  doc.font(run.font ?? SANS).fontSize(run.size ?? 10).heightOfString(printable(run.text), { width, lineGap: 1 });

const draw = (doc: Doc, run: Run, x: number, y: number, width: number) =>
  doc
    .font(run.font ?? SANS)
    .fontSize(run.size ?? 10)
    .fillColor(run.color ?? INK)
    .text(printable(run.text), x, y, { width, lineGap: 1 });

/** Starts a new page unless `height` more points fit on this one. */
const ensureRoom = (doc: Doc, height: number) => {
  if (doc.y + height > maxY(doc)) {
    doc.addPage();
    doc.y = MARGIN.top;
  }
};

const heading = (doc: Doc, title: string) => {
  ensureRoom(doc, 60); // keep a heading with at least its first lines
  doc.y += 10;
  draw(doc, { text: title, font: SANS_BOLD, size: 12, color: ACCENT }, MARGIN.left, doc.y, contentWidth(doc));
  const y = doc.y + 2;
  doc.moveTo(MARGIN.left, y).lineTo(MARGIN.left + contentWidth(doc), y).lineWidth(0.5).strokeColor(RULE).stroke();
  doc.y = y + 6;
};

/** A label on the left, one or more lines of value on the right. */
const field = (doc: Doc, label: string, value: Run | Run[]) => {
  const runs = Array.isArray(value) ? value : [value];
  const x = MARGIN.left + LABEL_WIDTH;
  const width = contentWidth(doc) - LABEL_WIDTH;
  const labelRun: Run = { text: label, size: 9, color: MUTED };
  const height = Math.max(heightOf(doc, labelRun, LABEL_WIDTH - 8), runs.reduce((sum, run) => sum + heightOf(doc, run, width), 0));
  ensureRoom(doc, height + 5);
  const top = doc.y;
  draw(doc, labelRun, MARGIN.left, top + 1, LABEL_WIDTH - 8);
  let y = top;
  for (const run of runs) {
    draw(doc, run, x, y, width);
    y += heightOf(doc, run, width);
  }
  doc.y = top + height + 5;
};

const paragraph = (doc: Doc, run: Run) => {
  const width = contentWidth(doc);
  ensureRoom(doc, heightOf(doc, run, width));
  draw(doc, run, MARGIN.left, doc.y, width);
  doc.y += 4;
};

interface Column {
  header: string;
  width: number;
  mono?: boolean;
}

const CELL_PAD = 4;
const CELL_SIZE = 8.5;

/** A table that breaks across pages, repeating its header row on each. Widths must sum to the content width. */
const table = (doc: Doc, columns: Column[], rows: string[][]) => {
  const cellRun = (column: Column, text: string, header = false): Run => ({
    text: clip(text),
    font: header ? SANS_BOLD : column.mono ? MONO : SANS,
    size: header ? 8 : column.mono ? 8 : CELL_SIZE,
    color: header ? '#ffffff' : INK,
  });
  const rowHeight = (cells: Run[]) => Math.max(...cells.map((run, i) => heightOf(doc, run, columns[i].width - 2 * CELL_PAD))) + 2 * CELL_PAD;
  const drawRow = (cells: Run[], fill: string | null) => {
    const top = doc.y; // drawing text moves doc.y: every cell starts from the row's top
    const height = rowHeight(cells);
    if (fill) doc.rect(MARGIN.left, top, contentWidth(doc), height).fill(fill);
    let x = MARGIN.left;
    cells.forEach((run, i) => {
      draw(doc, run, x + CELL_PAD, top + CELL_PAD, columns[i].width - 2 * CELL_PAD);
      x += columns[i].width;
    });
    doc.y = top + height;
  };
  const headerCells = columns.map((column) => cellRun(column, column.header, true));
  // Never leave a header alone at a page's foot: it starts where its first two rows fit too.
  const firstRows = rows.slice(0, 2).map((row) => rowHeight(row.map((text, i) => cellRun(columns[i], text))));
  ensureRoom(doc, rowHeight(headerCells) + firstRows.reduce((sum, height) => sum + height, 0));
  drawRow(headerCells, ACCENT);
  rows.forEach((row, index) => {
    const cells = row.map((text, i) => cellRun(columns[i], text));
    if (doc.y + rowHeight(cells) > maxY(doc)) {
      doc.addPage();
      doc.y = MARGIN.top;
      drawRow(headerCells, ACCENT);
    }
    drawRow(cells, index % 2 === 1 ? ZEBRA : null);
  });
  doc.moveTo(MARGIN.left, doc.y).lineTo(MARGIN.left + contentWidth(doc), doc.y).lineWidth(0.5).strokeColor(RULE).stroke();
  doc.y += 6;
};

/** A shaded band holding a command or a short statement. */
const band = (doc: Doc, run: Run, fill: string, padding = 8) => {
  const width = contentWidth(doc) - 2 * padding;
  const height = heightOf(doc, run, width) + 2 * padding - 1;
  ensureRoom(doc, height + 6);
  const top = doc.y;
  doc.roundedRect(MARGIN.left, top, contentWidth(doc), height, 3).fill(fill);
  draw(doc, run, MARGIN.left + padding, top + padding, width);
  doc.y = top + height + 6;
};

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
      ? { text: `${finalStatement(certificate)} Later certificates cannot add facts to this ${kind}.`, font: SANS_BOLD, size: 9.5, color: '#1e5b2c' }
      : { text: `Not final: the ${kind} has not ended, so its credential may still exist. A later certificate may add facts.`, font: SANS_BOLD, size: 9.5, color: '#7a4300' },
    certificate.final ? '#e6f2e8' : '#fdf1e1',
  );
};

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
  heading(doc, 'Keys the credential was sealed to');
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
    text: 'The SHA-256 above identifies the exact JSON this PDF was made from. The signed JSON is the certificate and this PDF is a reading of it: where they differ, the JSON counts.',
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
