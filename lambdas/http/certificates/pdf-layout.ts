/// <reference types="pdfkit" />
/**
 * The certificate PDF's typography and layout primitives (render-pdf.ts lays out the sections
 * with them): the palette and fonts, text the standard fonts can show, and the heading, field,
 * paragraph, table and band that flow down A4 pages with room checked before each.
 */
import type { CertificateParty } from '#core/custody/document.ts';

export type Doc = PDFKit.PDFDocument;
export const MARGIN = { top: 72, bottom: 64, left: 56, right: 56 };
export const INK = '#1a1a1a';
export const MUTED = '#5f6b7a';
export const ACCENT = '#1f3a5f';
export const RULE = '#c9d1db';
export const ZEBRA = '#f3f6f9';
export const LABEL_WIDTH = 138;
export const SANS = 'Helvetica';
export const SANS_BOLD = 'Helvetica-Bold';
export const MONO = 'Courier';

export type Font = typeof SANS | typeof SANS_BOLD | typeof MONO;
export interface Run {
  text: string;
  font?: Font;
  size?: number;
  color?: string;
}

// ---- Text the standard fonts can show ----
/** WinAnsi's characters outside Latin-1: the standard fonts can show these and Latin-1, nothing else. */
export const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

const inWinAnsi = (char: string) => char.codePointAt(0)! <= 0xff || WIN_ANSI_EXTRA.has(char);

/** Latin letters with a stroke or bar, which have no decomposition to drop an accent from. */
const STROKED: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', ı: 'i', Ŧ: 'T', ŧ: 't', Ɨ: 'I', ƚ: 'l' };

/**
 * A letter the standard fonts cannot show, as the nearest one they can: without its accent where
 * that leaves a Latin letter (Dvořák as Dvorák, Łukasz as Lukasz), else `?` rather than an
 * invisible glyph. The PDF says so, and the attached JSON keeps the exact text.
 */
const nearestShown = (char: string) => {
  if (STROKED[char]) return STROKED[char];
  const bare = char.normalize('NFKD').replace(/\p{M}/gu, '');
  return bare !== '' && Array.from(bare).every((part) => inWinAnsi(part) && part.codePointAt(0)! >= 0x20) ? bare : '?';
};

export const printable = (text: string) =>
  Array.from(text.normalize('NFC'), (char) => {
    const code = char.codePointAt(0)!;
    if (char === '\n') return char; // kept: grouped hex breaks its lines so
    if (code < 0x20 || (code >= 0x7f && code < 0xa0 && !WIN_ANSI_EXTRA.has(char))) return ' ';
    return inWinAnsi(char) ? char : nearestShown(char);
  }).join('');

export const clip = (text: string, max = 400) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Hex in groups of 4, eight groups a line, so a 64-character fingerprint reads as two even lines
 * and any wrap falls between groups, never inside one.
 */
export const grouped = (value: string) => {
  if (!/^[0-9a-f]+$/i.test(value)) return value;
  const lines = value.match(/.{1,32}/g)!.map((line) => line.match(/.{1,4}/g)!.join(' '));
  return lines.join('\n');
};

export const shortHash = (hash: string) => (hash.length > 16 ? `${hash.slice(0, 16)}…` : hash);

/** `2026-01-05T09:01:00.000Z` → `2026-01-05 09:01:00` (UTC); text that is not a date is shown as is. */
export const when = (iso: string | null) => {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 19).replace('T', ' ');
};

export const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export const partyRuns = (party: CertificateParty): Run[] => {
  const name = [party.name, party.email && `<${party.email}>`].filter(Boolean).join(' ') || 'Unknown';
  return [{ text: name }, ...(party.membership_id ? [{ text: party.membership_id, font: MONO, size: 8, color: MUTED } as Run] : [])];
};

// ---- Drawing primitives; each keeps doc.y as the next free line ----
export const maxY = (doc: Doc) => doc.page.height - MARGIN.bottom;
export const contentWidth = (doc: Doc) => doc.page.width - MARGIN.left - MARGIN.right;

export const heightOf = (doc: Doc, run: Run, width: number) =>
  doc.font(run.font ?? SANS).fontSize(run.size ?? 10).heightOfString(printable(run.text), { width, lineGap: 1 });

export const draw = (doc: Doc, run: Run, x: number, y: number, width: number) =>
  doc
    .font(run.font ?? SANS)
    .fontSize(run.size ?? 10)
    .fillColor(run.color ?? INK)
    .text(printable(run.text), x, y, { width, lineGap: 1 });

/** Starts a new page unless `height` more points fit on this one. */
export const ensureRoom = (doc: Doc, height: number) => {
  if (doc.y + height > maxY(doc)) {
    doc.addPage();
    doc.y = MARGIN.top;
  }
};

export const heading = (doc: Doc, title: string) => {
  ensureRoom(doc, 60); // keep a heading with at least its first lines
  doc.y += 10;
  draw(doc, { text: title, font: SANS_BOLD, size: 12, color: ACCENT }, MARGIN.left, doc.y, contentWidth(doc));
  const y = doc.y + 2;
  doc.moveTo(MARGIN.left, y).lineTo(MARGIN.left + contentWidth(doc), y).lineWidth(0.5).strokeColor(RULE).stroke();
  doc.y = y + 6;
};

/** A label on the left, one or more lines of value on the right. */
export const field = (doc: Doc, label: string, value: Run | Run[]) => {
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

export const paragraph = (doc: Doc, run: Run) => {
  const width = contentWidth(doc);
  ensureRoom(doc, heightOf(doc, run, width));
  draw(doc, run, MARGIN.left, doc.y, width);
  doc.y += 4;
};

export interface Column {
  header: string;
  width: number;
  mono?: boolean;
}

export const CELL_PAD = 4;
export const CELL_SIZE = 8.5;

/** A table that breaks across pages, repeating its header row on each. Widths must sum to the content width. */
export const table = (doc: Doc, columns: Column[], rows: string[][]) => {
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
export const band = (doc: Doc, run: Run, fill: string, padding = 8) => {
  const width = contentWidth(doc) - 2 * padding;
  const height = heightOf(doc, run, width) + 2 * padding - 1;
  ensureRoom(doc, height + 6);
  const top = doc.y;
  doc.roundedRect(MARGIN.left, top, contentWidth(doc), height, 3).fill(fill);
  draw(doc, run, MARGIN.left + padding, top + padding, width);
  doc.y = top + height + 6;
};
