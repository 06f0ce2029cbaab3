/// <reference lib="dom" />
/**
 * Takes the signed certificate JSON out of a certificate PDF, in the browser. The service's PDF
 * (lambdas/http/certificates/render-pdf.ts) attaches the exact JSON it signed as an
 * `/Type /EmbeddedFile` stream, FlateDecode-compressed; this finds such streams, inflates them
 * with DecompressionStream and returns the one JSON certificate among them.
 *
 * A small reader for the PDFs the service makes, not a PDF library: it does not read compressed
 * object streams or encrypted files (the `verify-custody-certificate --pdf` tool reads more).
 */
const latin1 = (bytes: Uint8Array) => {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return text;
};

export class PdfCertificateError extends Error {
  override readonly name = 'PdfCertificateError';
}

/** From the `<<` at `start`, the end of its matching `>>` and the text of its top level only. */
const dictionaryAt = (text: string, start: number) => {
  let depth = 0;
  let top = '';
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === '(') {
      // A literal string: skip it whole, minding nesting and escapes.
      let nesting = 1;
      for (i++; i < text.length && nesting > 0; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '(') nesting++;
        else if (text[i] === ')') nesting--;
      }
      i--;
      continue;
    }
    if (char === '<' && text[i + 1] === '<') {
      depth++;
      i++;
      continue;
    }
    if (char === '>' && text[i + 1] === '>') {
      depth--;
      i++;
      if (depth === 0) return { end: i + 1, top };
      continue;
    }
    if (depth === 1) top += char;
  }
  return null;
};

const inflate = async (bytes: Uint8Array) => {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
};

/** Every embedded file stream's bytes, decoded. */
const embeddedFiles = async (pdf: Uint8Array) => {
  const text = latin1(pdf);
  if (!text.slice(0, 1024).includes('%PDF-')) throw new PdfCertificateError('The file is not a PDF.');
  if (/trailer\s*<<[^]*?\/Encrypt\b/.test(text) || /\/Type\s*\/XRef\b[^]*?\/Encrypt\b/.test(text)) throw new PdfCertificateError('The PDF is encrypted, so its attachment cannot be read here.');
  const files: Uint8Array[] = [];
  const header = /(\d+)\s+(\d+)\s+obj\s*<</g;
  for (let match = header.exec(text); match; match = header.exec(text)) {
    const dictStart = match.index + match[0].length - 2;
    const dict = dictionaryAt(text, dictStart);
    if (!dict) continue;
    header.lastIndex = dict.end;
    if (!/\/Type\s*\/EmbeddedFile(?![A-Za-z])/.test(dict.top)) continue;
    const streamMatch = /^\s*stream\r?\n/.exec(text.slice(dict.end, dict.end + 20));
    if (!streamMatch) continue;
    const start = dict.end + streamMatch[0].length;
    const lengthMatch = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/.exec(dict.top);
    let length: number | null = null;
    if (lengthMatch && lengthMatch[2] === undefined) length = Number(lengthMatch[1]);
    else if (lengthMatch) {
      const target = new RegExp(`(?:^|\\s)${lengthMatch[1]}\\s+${lengthMatch[2]}\\s+obj\\s*(\\d+)\\s*endobj`).exec(text);
      length = target ? Number(target[1]) : null;
    }
    let end = length !== null && start + length <= pdf.length ? start + length : text.indexOf('endstream', start);
    if (end < start) continue;
    if (length === null) while (end > start && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
    header.lastIndex = end;
    let bytes: Uint8Array = pdf.subarray(start, end);
    const filter = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict.top)?.[1] ?? '';
    const filters = filter.match(/\/[A-Za-z0-9]+/g) ?? [];
    if (/\/Predictor\s+([2-9]|\d{2,})/.test(text.slice(dictStart, dict.end))) throw new PdfCertificateError('The PDF’s attachment uses a predictor this page does not decode.');
    for (const name of filters) {
      if (name !== '/FlateDecode') throw new PdfCertificateError(`The PDF’s attachment is encoded with ${name}, which this page does not decode.`);
      try {
        bytes = await inflate(bytes);
      } catch {
        throw new PdfCertificateError('The PDF’s attachment is damaged: its compressed data does not inflate.');
      }
    }
    const size = /\/Size\s+(\d+)/.exec(text.slice(dictStart, dict.end))?.[1];
    if (size !== undefined && Number(size) !== bytes.length) throw new PdfCertificateError(`The PDF’s attachment is damaged: ${bytes.length} bytes where the PDF records ${size}.`);
    files.push(bytes);
  }
  return files;
};

/** The text of the one JSON certificate attached to `pdf`; throws PdfCertificateError saying why not. */
export const certificateFromPdf = async (pdf: Uint8Array): Promise<string> => {
  const candidates: string[] = [];
  for (const bytes of await embeddedFiles(pdf)) {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'format' in parsed) candidates.push(text);
    } catch {
      // an attachment that is not JSON
    }
  }
  if (candidates.length === 0) throw new PdfCertificateError('The PDF has no certificate attached: no JSON certificate is embedded in it.');
  if (candidates.length > 1) throw new PdfCertificateError(`The PDF has ${candidates.length} JSON certificates attached; expected exactly one.`);
  return candidates[0];
};

export const isPdf = (bytes: Uint8Array) => latin1(bytes.subarray(0, 1024)).includes('%PDF-');
