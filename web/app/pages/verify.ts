/// <reference lib="dom" />
/**
 * The Verify page, /app/verify (also signed out): checks a custody certificate in this browser.
 * The file (the JSON, or the certificate PDF with the JSON attached) is read here and never
 * uploaded; the page fetches the service's public signing keys (GET /.well-known/jwks.json) and
 * runs the same verifier as the `verify-custody-certificate` tool
 * (lambdas/core/custody/verify.ts, WebCrypto only).
 *
 * Stable hooks for automated tests:
 *   #verify-form, #drop-zone, #certificate-file (the file input)
 *   #verify-result[data-valid="true" | "false"]: #verify-summary, #certificate-facts,
 *   #certificate-timeline (table), #verify-key; or #verify-reason
 */
import type { PublicJwk, SignedCertificate } from '../../../lambdas/core/custody/document.ts';
import { parseJwks, verifyCertificateText } from '../../../lambdas/core/custody/verify.ts';
import { call, messageOf } from '../../shared/api.ts';
import { clearMessages, facts, focusHeading, formatTime, h, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { actorOf, auditText, worded } from '../labels.ts';
import { inSentence, reasonText } from '../request-words.ts';
import { certificateFromPdf, isPdf, PdfCertificateError } from '../pdf-certificate.ts';

const MAX_FILE_BYTES = 10 * 1024 * 1024;

type Outcome = { ok: true; certificate: SignedCertificate; key: PublicJwk; summary: string; fromPdf: boolean } | { ok: false; reason: string };

/** Reads and checks one file. Throws only when the keys cannot be fetched (nothing was decided). */
const check = async (file: File): Promise<Outcome> => {
  if (file.size > MAX_FILE_BYTES) return { ok: false, reason: 'The file is larger than 10 MB, too large to be a certificate.' };
  const bytes = new Uint8Array(await file.arrayBuffer());
  const fromPdf = isPdf(bytes);
  let text: string;
  if (fromPdf) {
    try {
      text = await certificateFromPdf(bytes);
    } catch (error) {
      return { ok: false, reason: error instanceof PdfCertificateError ? error.message : 'The PDF could not be read.' };
    }
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return { ok: false, reason: 'The file is neither a PDF nor UTF-8 text, so it is not a certificate.' };
    }
  }
  try {
    JSON.parse(text);
  } catch {
    return { ok: false, reason: 'The file is not JSON, so it is not a certificate (choose the .json certificate or the certificate PDF).' };
  }
  const jwks = parseJwks(await call<unknown>('GET', '/.well-known/jwks.json'));
  const outcome = await verifyCertificateText(text, jwks);
  return outcome.ok ? { ...outcome, fromPdf } : outcome;
};


/** When, and why in words: "Yes, 27 Nov 2026, 16:24 UTC (completed by a member)", the stored reason in the title. */
const destroyedText = (destruction: SignedCertificate['destruction']) => {
  const when = `Yes, ${formatTime(destruction.at)}`;
  if (!destruction.reason) return when;
  return h('span', { title: destruction.reason }, `${when} (${inSentence(reasonText(destruction.reason))})`);
};

const subjectText = (certificate: SignedCertificate) =>
  certificate.subject_kind === 'request' ? `Request ${certificate.request.id}` : `Share ${certificate.share.id}`;

const issuerNote = (certificate: { issuer?: { app_url?: unknown } } | null) => {
  const appUrl = certificate?.issuer?.app_url;
  return typeof appUrl === 'string' && appUrl !== location.origin
    ? h('p', { class: 'hint' }, `The certificate names another issuer (${appUrl}); it was checked against the keys this service publishes.`)
    : null;
};

const validSection = (outcome: Extract<Outcome, { ok: true }>, fileName: string) => {
  const { certificate, key } = outcome;
  const destruction = certificate.destruction;
  const timeline = h(
    'table',
    { id: 'certificate-timeline' },
    h('caption', {}, 'Timeline, oldest first; each fact names the audit chain entry (seq) behind it'),
    h('thead', {}, h('tr', {}, ...['Seq', 'When', 'What happened', 'By', 'Reason'].map((text) => h('th', { scope: 'col' }, text)))),
    h(
      'tbody',
      {},
      ...certificate.timeline.map((fact) =>
        h(
          'tr',
          { 'data-type': fact.type },
          h('td', {}, String(fact.seq)),
          h('td', { class: 'nowrap' }, h('time', { datetime: fact.at }, formatTime(fact.at))),
          // The app's words for the entry's type, as the trail and the audit log say it; the certificate's own word for a type this app does not know.
          h('th', { scope: 'row' }, auditText(fact.type) === fact.type ? fact.event : auditText(fact.type)),
          h('td', {}, actorOf(fact.actor)),
          h('td', {}, fact.reason ? worded(reasonText(fact.reason), fact.reason) : '—'),
        ),
      ),
    ),
  );
  return h(
    'section',
    { id: 'verify-result', class: 'verdict verdict-valid', 'data-valid': 'true', 'aria-labelledby': 'verdict-heading' },
    h('h2', { id: 'verdict-heading' }, h('span', { 'aria-hidden': 'true' }, '✓ '), 'Valid'),
    h('p', {}, `${fileName}${outcome.fromPdf ? ' (the certificate attached to the PDF)' : ''} is a genuine certificate of this service, and its timeline matches the audit chain entries it carries.`),
    h('p', { id: 'verify-summary', class: 'summary' }, outcome.summary),
    facts('certificate-facts', [
      ['Organisation', certificate.organisation.name],
      ['About', subjectText(certificate)],
      ['Final', certificate.final ? 'Yes: it had ended when the certificate was issued' : 'No: it had not ended when the certificate was issued, so later events are missing'],
      ['Credential destroyed', destruction.destroyed ? destroyedText(destruction) : 'No'],
      ['Issued', formatTime(certificate.issued_at)],
      ['Issued by', certificate.issuer.name],
      ['Certificate id', certificate.certificate_id],
      ['Signing key', h('code', { id: 'verify-key' }, key.kid)],
      ['Key status', key.retired_at ? `Retired ${formatTime(key.retired_at)} (it still verifies what it signed before)` : 'Current'],
    ]),
    issuerNote(certificate),
    h('h3', {}, 'Timeline'),
    tableWrap(timeline),
  );
};

const invalidSection = (reason: string, fileName: string, document: unknown) =>
  h(
    'section',
    { id: 'verify-result', class: 'verdict verdict-invalid', 'data-valid': 'false', 'aria-labelledby': 'verdict-heading' },
    h('h2', { id: 'verdict-heading' }, h('span', { 'aria-hidden': 'true' }, '✗ '), 'Not valid'),
    h('p', {}, `${fileName} did not pass the check. Do not rely on what it says.`),
    h('p', {}, h('strong', {}, 'Reason: '), h('span', { id: 'verify-reason' }, reason)),
    issuerNote(document as { issuer?: { app_url?: unknown } } | null),
  );

export const verifyPage = async (app: AppContext) => {
  const input = h('input', { id: 'certificate-file', name: 'certificate', type: 'file', accept: '.json,.pdf,application/json,application/pdf', 'aria-describedby': 'certificate-file-hint' });
  const zone = h(
    'div',
    { id: 'drop-zone', class: 'drop-zone' },
    h('label', { for: 'certificate-file' }, 'Certificate file (JSON or PDF)'),
    h('p', { class: 'hint', id: 'certificate-file-hint' }, 'Choose the file, or drop it here. It is read in this browser only and is not uploaded.'),
    input,
  );
  const result = h('div', { id: 'verify-output' });

  const run = async (file: File | undefined) => {
    clearMessages();
    replaceChildren(result);
    if (!file) return;
    say(`Checking ${file.name}…`);
    let outcome: Outcome;
    try {
      outcome = await check(file);
    } catch (error) {
      return sayError(`The service's signing keys could not be fetched, so nothing was decided. ${messageOf(error, '')}`.trim());
    }
    let document: unknown = null;
    if (!outcome.ok) document = await file.text().then((text) => JSON.parse(text) as unknown).catch(() => null);
    const section = outcome.ok ? validSection(outcome, file.name) : invalidSection(outcome.reason, file.name, document);
    replaceChildren(result, section);
    say(outcome.ok ? `Valid: ${file.name} is a genuine certificate.` : `Not valid: ${outcome.reason}`);
    focusHeading(section.querySelector('h2')!);
  };

  input.addEventListener('change', () => void run(input.files?.[0]));
  const form = h('form', { id: 'verify-form', novalidate: true, 'aria-label': 'Choose a certificate' }, zone);
  form.addEventListener('submit', (event) => event.preventDefault());
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    const file = event.dataTransfer?.files?.[0];
    if (file) void run(file);
  });

  return h(
    'div',
    {},
    h('h1', {}, 'Verify a custody certificate'),
    h(
      'p',
      {},
      'A custody certificate is a signed record of what happened to a request or a share. This page checks its signature against the signing keys this service publishes and checks that its timeline matches the audit chain entries it carries.',
    ),
    form,
    result,
    app.member() ? null : h('p', {}, h('a', { href: '/app/sign-in' }, 'Sign in'), ' to see your requests and shares.'),
  );
};
