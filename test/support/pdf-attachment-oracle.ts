/**
 * Reads the files embedded in a PDF, to take the signed JSON out of a certificate PDF
 * (lambdas/http/certificates/render-pdf.ts attaches it). The service itself never reads one: the
 * reader that ships is the single-file verifier's (tools/verify-custody-certificate.mjs, plain
 * JavaScript an auditor reads). This second one, written apart in TypeScript, is the tests' oracle:
 * the tests hold the two to the same answers on every PDF they make or mangle.
 *
 * A small reader, not a PDF library: it walks the file's `N G obj … endobj` objects in order,
 * parses their dictionaries, finds the `/Type /Filespec` objects whose `/EF` points at an
 * `/Type /EmbeddedFile` stream, and inflates that stream. That covers what pdfkit writes and what
 * other writers do for attachments, including objects packed in compressed object streams and
 * incremental updates (the later definition of an object wins). It does not decrypt: for an
 * encrypted file it says so instead of reporting "no attachment". Node-only (node:zlib,
 * node:crypto); document.ts stays browser-safe.
 */
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';

export interface EmbeddedFile {
  name: string;
  bytes: Uint8Array;
}

// ---- PDF values ----
type PdfValue = number | boolean | null | PdfName | PdfString | PdfRef | PdfValue[] | PdfDict;
class PdfName {
  constructor(readonly name: string) {}
}
class PdfString {
  constructor(readonly bytes: Uint8Array) {}
}
class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}
type PdfDict = Map<string, PdfValue>;

interface PdfObject {
  value: PdfValue;
  /** Where the object (or the object stream holding it) starts: the later of two definitions wins. */
  at: number;
  /** Byte offset of the stream data, when the object is a stream. */
  stream?: { start: number };
}

const isDict = (value: PdfValue | undefined): value is PdfDict => value instanceof Map;
const nameOf = (value: PdfValue | undefined) => (value instanceof PdfName ? value.name : null);

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([...'()<>[]{}/%'].map((char) => char.charCodeAt(0)));

/** A tokenizer and recursive-descent parser over the raw bytes (PDF syntax is byte-oriented). */
class Parser {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  skipSpace() {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const byte = bytes[this.pos];
      if (WHITESPACE.has(byte)) this.pos++;
      else if (byte === 0x25 /* % comment */) while (this.pos < bytes.length && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++;
      else break;
    }
  }

  private regular() {
    const start = this.pos;
    while (this.pos < this.bytes.length && !WHITESPACE.has(this.bytes[this.pos]) && !DELIMITERS.has(this.bytes[this.pos])) this.pos++;
    return latin1(this.bytes.subarray(start, this.pos));
  }

  /** The next keyword or number without consuming it (for `N G R` and `stream`). */
  peekWord(): string {
    const saved = this.pos;
    this.skipSpace();
    const word = this.regular();
    this.pos = saved;
    return word;
  }

  value(depth = 0): PdfValue {
    if (depth > 100) throw new Error('nested too deeply');
    this.skipSpace();
    const byte = this.bytes[this.pos];
    if (byte === undefined) throw new Error('unexpected end of file');
    if (byte === 0x2f /* / */) {
      this.pos++;
      return new PdfName(this.regular().replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
    }
    if (byte === 0x28 /* ( */) return this.literalString();
    if (byte === 0x3c /* < */) {
      if (this.bytes[this.pos + 1] === 0x3c) return this.dictionary(depth);
      return this.hexString();
    }
    if (byte === 0x5b /* [ */) {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (this.bytes[this.pos] === 0x5d /* ] */) {
          this.pos++;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    const word = this.regular();
    if (word === '') throw new Error(`unexpected character ${String.fromCharCode(byte)} at ${this.pos}`);
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    const number = Number(word);
    if (Number.isNaN(number)) throw new Error(`unexpected keyword ${word} at ${this.pos}`);
    // `N G R` is an indirect reference: look ahead without committing.
    if (Number.isInteger(number) && number >= 0) {
      const saved = this.pos;
      const gen = this.peekNumberThenR();
      if (gen !== null) return new PdfRef(number, gen);
      this.pos = saved;
    }
    return number;
  }

  private peekNumberThenR(): number | null {
    this.skipSpace();
    const gen = this.regular();
    if (!/^\d+$/.test(gen)) return null;
    this.skipSpace();
    if (this.regular() !== 'R') return null;
    return Number(gen);
  }

  private dictionary(depth: number): PdfDict {
    this.pos += 2;
    const dict: PdfDict = new Map();
    for (;;) {
      this.skipSpace();
      if (this.bytes[this.pos] === 0x3e && this.bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return dict;
      }
      const key = this.value(depth + 1);
      if (!(key instanceof PdfName)) throw new Error(`dictionary key is not a name at ${this.pos}`);
      dict.set(key.name, this.value(depth + 1));
    }
  }

  private hexString() {
    const end = this.bytes.indexOf(0x3e, this.pos);
    if (end < 0) throw new Error('unterminated hex string');
    const hex = latin1(this.bytes.subarray(this.pos + 1, end)).replace(/\s+/g, '');
    this.pos = end + 1;
    return new PdfString(Uint8Array.from((hex.length % 2 ? `${hex}0` : hex).match(/../g) ?? [], (pair) => parseInt(pair, 16)));
  }

  private literalString() {
    const { bytes } = this;
    const out: number[] = [];
    let depth = 1;
    this.pos++;
    while (this.pos < bytes.length) {
      let byte = bytes[this.pos++];
      if (byte === 0x28) depth++;
      else if (byte === 0x29 && --depth === 0) return new PdfString(Uint8Array.from(out));
      else if (byte === 0x5c /* \ */) {
        byte = bytes[this.pos++];
        const simple: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };
        if (byte in simple) byte = simple[byte];
        else if (byte >= 0x30 && byte <= 0x37) {
          let octal = byte - 0x30;
          for (let i = 0; i < 2 && bytes[this.pos] >= 0x30 && bytes[this.pos] <= 0x37; i++) octal = octal * 8 + bytes[this.pos++] - 0x30;
          byte = octal & 0xff;
        } else if (byte === 0x0d || byte === 0x0a) {
          if (byte === 0x0d && bytes[this.pos] === 0x0a) this.pos++;
          continue; // a backslash before an end of line continues the string
        }
      }
      out.push(byte);
    }
    throw new Error('unterminated string');
  }
}

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** A PDF text string: UTF-16BE or UTF-8 with a byte-order mark, else PDFDocEncoding (≈ Latin-1). */
const textOf = (value: PdfValue | undefined): string | null => {
  if (!(value instanceof PdfString)) return null;
  const { bytes } = value;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  return latin1(bytes);
};

const OBJECT_HEADER = /(\d+)\s+(\d+)\s+obj\b/g;

/** A token boundary: "10 0 obj" must not also be read as "0 0 obj". */
const startsToken = (pdf: Uint8Array, index: number) => index === 0 || WHITESPACE.has(pdf[index - 1]) || DELIMITERS.has(pdf[index - 1]);

/**
 * Every indirect object by number (a later definition wins), and the trailer dictionaries. Stream
 * data is stepped over by its length, so bytes inside a stream are never taken for objects.
 */
const readObjects = (pdf: Uint8Array) => {
  const text = latin1(pdf);
  const objects = new Map<number, PdfObject>();
  OBJECT_HEADER.lastIndex = 0;
  for (let match = OBJECT_HEADER.exec(text); match; match = OBJECT_HEADER.exec(text)) {
    if (!startsToken(pdf, match.index)) continue;
    const parser = new Parser(pdf, OBJECT_HEADER.lastIndex);
    let value: PdfValue;
    try {
      value = parser.value();
    } catch {
      continue; // not an object this reader can parse, so not an attachment it could use
    }
    const object: PdfObject = { value, at: match.index };
    if (isDict(value) && parser.peekWord() === 'stream') {
      parser.skipSpace();
      let start = parser.pos + 'stream'.length;
      if (pdf[start] === 0x0d) start++;
      if (pdf[start] === 0x0a) start++;
      object.stream = { start };
      const length = directLength(text, value.get('Length'));
      const end = length !== null ? start + length : text.indexOf('endstream', start);
      if (end >= start) OBJECT_HEADER.lastIndex = end;
    }
    objects.set(Number(match[1]), object);
  }
  unpackObjectStreams(pdf, objects);
  const trailers: PdfDict[] = [];
  for (let at = text.indexOf('trailer'); at >= 0; at = text.indexOf('trailer', at + 1)) {
    try {
      const value = new Parser(pdf, at + 'trailer'.length).value();
      if (isDict(value)) trailers.push(value);
    } catch {
      // "trailer" inside some other content
    }
  }
  return { objects, trailers };
};

/** A stream's /Length, also when it is an indirect `N G R` to an object holding just the number. */
const directLength = (text: string, length: PdfValue | undefined): number | null => {
  if (typeof length === 'number') return length;
  if (!(length instanceof PdfRef)) return null;
  const match = new RegExp(`(?:^|[\\s>\\]])${length.num}\\s+${length.gen}\\s+obj\\s+(\\d+)\\s+endobj`).exec(text);
  return match ? Number(match[1]) : null;
};

/**
 * Adds the objects packed in compressed object streams (`/Type /ObjStm`, PDF 1.5+; what viewers
 * that re-save a file often write), each at the position of the stream holding it.
 */
const unpackObjectStreams = (pdf: Uint8Array, objects: Map<number, PdfObject>) => {
  const streams = [...objects.values()].filter((object) => object.stream && isDict(object.value) && nameOf(object.value.get('Type')) === 'ObjStm');
  for (const objstm of streams.sort((a, b) => a.at - b.at)) {
    const dict = objstm.value as PdfDict;
    const count = resolve(objects, dict.get('N'));
    const first = resolve(objects, dict.get('First'));
    if (typeof count !== 'number' || typeof first !== 'number') continue;
    let data: Uint8Array;
    try {
      data = streamBytes(pdf, objects, objstm, 'An object stream');
    } catch {
      continue; // an object stream we cannot decode simply contributes nothing
    }
    const header = latin1(data.subarray(0, first)).trim().split(/\s+/).map(Number);
    for (let i = 0; i + 1 < Math.min(header.length, 2 * count); i += 2) {
      const [num, offset] = [header[i], header[i + 1]];
      const existing = objects.get(num);
      if (existing && existing.at > objstm.at) continue;
      try {
        objects.set(num, { value: new Parser(data, first + offset).value(), at: objstm.at });
      } catch {
        // skip an object we cannot parse
      }
    }
  }
};

const resolve = (objects: Map<number, PdfObject>, value: PdfValue | undefined): PdfValue | undefined =>
  value instanceof PdfRef ? objects.get(value.num)?.value : value;

const asList = (value: PdfValue | undefined): PdfValue[] => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);

const streamBytes = (pdf: Uint8Array, objects: Map<number, PdfObject>, object: PdfObject, label: string): Uint8Array => {
  const dict = object.value as PdfDict;
  const start = object.stream!.start;
  const declared = resolve(objects, dict.get('Length'));
  let end: number;
  if (typeof declared === 'number' && Number.isInteger(declared) && declared >= 0 && start + declared <= pdf.length) end = start + declared;
  else {
    // No usable /Length: the data runs to the `endstream` keyword, less the end of line before it.
    end = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).indexOf('endstream', start, 'latin1');
    if (end < 0) throw new Error(`${label}: its stream has no length and no endstream`);
    if (pdf[end - 1] === 0x0a) end--;
    if (pdf[end - 1] === 0x0d) end--;
  }
  let bytes: Uint8Array = pdf.subarray(start, end);
  const filters = asList(resolve(objects, dict.get('Filter')));
  const parms = asList(resolve(objects, dict.get('DecodeParms')));
  for (const [i, filter] of filters.entries()) {
    const name = nameOf(resolve(objects, filter));
    if (name !== 'FlateDecode') throw new Error(`${label} is encoded with /${name ?? '?'}, which this reader does not decode`);
    const parm = resolve(objects, parms[i]);
    const predictor = isDict(parm) ? resolve(objects, parm.get('Predictor')) : undefined;
    if (typeof predictor === 'number' && predictor > 1) throw new Error(`${label} uses a PNG/TIFF predictor, which this reader does not decode`);
    try {
      bytes = inflateSync(bytes);
    } catch (error) {
      throw new Error(`${label}: its compressed data is corrupt (${(error as Error).message})`);
    }
  }
  return new Uint8Array(bytes);
};

/** The sizes and checksums writers record (`/Params`), checked so a damaged attachment is not returned as if whole. */
const checkParams = (objects: Map<number, PdfObject>, dict: PdfDict, bytes: Uint8Array, label: string) => {
  const params = resolve(objects, dict.get('Params'));
  if (!isDict(params)) return;
  const size = resolve(objects, params.get('Size'));
  if (typeof size === 'number' && size !== bytes.length) throw new Error(`${label} is damaged: ${bytes.length} bytes where the PDF records ${size}`);
  const checksum = resolve(objects, params.get('CheckSum'));
  if (!(checksum instanceof PdfString)) return;
  // The spec's form is the 16 raw bytes; pdfkit writes the 32 hex digits as text. Other forms are not checked.
  const recorded = checksum.bytes.length === 16 ? Buffer.from(checksum.bytes).toString('hex') : latin1(checksum.bytes).toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(recorded)) return;
  if (recorded !== createHash('md5').update(bytes).digest('hex')) throw new Error(`${label} is damaged: its MD5 does not match the checksum the PDF records`);
};

const assertPdf = (pdf: Uint8Array) => {
  // The header may follow a few bytes of junk (the spec allows up to 1024).
  const head = latin1(pdf.subarray(0, 1024));
  if (!head.includes('%PDF-')) throw new Error('Not a PDF: the file does not start with a %PDF- header');
};

/** Every file embedded in `pdf` (attachments), in the order of their file specifications. */
export const extractEmbeddedFiles = (pdf: Uint8Array): EmbeddedFile[] => {
  assertPdf(pdf);
  const { objects, trailers } = readObjects(pdf);
  // Encrypted strings and streams would read as garbage: say so rather than fail obscurely. The
  // trailer says it (or, in PDF 1.5+, the cross-reference stream that stands in for the trailer).
  const xrefStreams = [...objects.values()].map((object) => object.value).filter((value) => isDict(value) && nameOf(value.get('Type')) === 'XRef');
  if ([...trailers, ...xrefStreams].some((dict) => isDict(dict) && dict.has('Encrypt'))) throw new Error('The PDF is encrypted; this reader cannot read its attachments');
  const files: EmbeddedFile[] = [];
  const seen = new Set<number>();
  for (const num of [...objects.keys()].sort((a, b) => a - b)) {
    const spec = objects.get(num)!.value;
    if (!isDict(spec) || nameOf(spec.get('Type')) !== 'Filespec') continue;
    const ef = resolve(objects, spec.get('EF'));
    if (!isDict(ef)) continue;
    const ref = ef.get('UF') ?? ef.get('F');
    if (!(ref instanceof PdfRef) || seen.has(ref.num)) continue;
    const target = objects.get(ref.num);
    if (!target?.stream) continue;
    seen.add(ref.num);
    const name = textOf(resolve(objects, spec.get('UF'))) ?? textOf(resolve(objects, spec.get('F'))) ?? '';
    const label = `Embedded file "${name}"`;
    const bytes = streamBytes(pdf, objects, target, label);
    checkParams(objects, target.value as PdfDict, bytes, label);
    files.push({ name, bytes });
  }
  return files;
};

/**
 * The UTF-8 text of the one `.json` file embedded in `pdf`: the signed certificate a certificate
 * PDF carries. Throws, saying why, for a non-PDF, no such attachment or several.
 */
export const extractEmbeddedCertificate = (pdf: Uint8Array): string => {
  const files = extractEmbeddedFiles(pdf);
  const json = files.filter((file) => file.name.toLowerCase().endsWith('.json'));
  if (json.length === 0) {
    const others = files.length ? ` (it has ${files.length} other attachment${files.length > 1 ? 's' : ''}: ${files.map((file) => file.name).join(', ')})` : '';
    throw new Error(`The PDF has no embedded certificate: no .json file is attached${others}`);
  }
  if (json.length > 1) throw new Error(`The PDF has ${json.length} embedded .json files (${json.map((file) => file.name).join(', ')}); expected exactly one certificate`);
  try {
    // ignoreBOM keeps the text byte-for-byte as attached, which is what its hash is over.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(json[0].bytes);
  } catch {
    throw new Error(`The embedded certificate ${json[0].name} is not valid UTF-8`);
  }
};
