/// <reference lib="dom" />
/**
 * Custody certificate downloads for the member application: a request's or a share's signed
 * certificate as JSON or PDF (GET /app/api/{requests|shares}/{id}/certificate?format=json|pdf).
 * The file is fetched with the session cookie, then saved through a temporary Blob link.
 *
 * Hooks: #certificate (section), #download-certificate-json, #download-certificate-pdf.
 */
import { busy, h, say, sayError } from '../shared/dom.ts';

export type CertificateKind = 'requests' | 'shares';
export type CertificateFormat = 'json' | 'pdf';

const fileNameOf = (response: Response, fallback: string) => {
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const name = /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  return name && /^[\w.-]+$/.test(name) ? name : fallback;
};

const failureOf = async (response: Response) => {
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON
  }
  return response.status === 401 ? 'Your session has ended. Sign in again.' : 'The certificate could not be downloaded. Try again.';
};

/** Fetches the certificate and saves it; says what happened in the live regions. */
export const downloadCertificate = async (kind: CertificateKind, id: string, format: CertificateFormat) => {
  let response: Response;
  try {
    response = await fetch(`/app/api/${kind}/${encodeURIComponent(id)}/certificate?format=${format}`, {
      credentials: 'same-origin',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
      headers: { Accept: format === 'pdf' ? 'application/pdf' : 'application/json' },
    });
  } catch {
    return sayError('The service could not be reached. Check your connection and try again.');
  }
  if (!response.ok) return sayError(await failureOf(response));
  const blob = await response.blob();
  const name = fileNameOf(response, `custody-certificate-${id}.${format}`);
  const url = URL.createObjectURL(blob);
  const anchor = h('a', { href: url, download: name, hidden: true }, name);
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  say(`Downloaded ${name}.`);
};

/** The section with both buttons; `note` (optional) says e.g. that the certificate is not final yet. */
export const certificateSection = (kind: CertificateKind, id: string, note?: string) => {
  const button = (format: CertificateFormat, text: string) => {
    const element = h('button', { id: `download-certificate-${format}`, type: 'button', class: 'secondary' }, text);
    element.addEventListener('click', () => busy(element, () => downloadCertificate(kind, id, format)));
    return element;
  };
  return h(
    'section',
    { id: 'certificate', 'aria-labelledby': 'certificate-heading' },
    h('h2', { id: 'certificate-heading' }, 'Custody certificate'),
    h(
      'p',
      {},
      `A signed record of what happened to this ${kind === 'requests' ? 'request' : 'share'}, built from the audit trail: who made it, when it was opened, and when the credential was destroyed. Anyone can check it on the `,
      h('a', { href: '/app/verify' }, 'Verify page'),
      ' or with the verify-custody-certificate tool.',
    ),
    note ? h('p', { class: 'hint' }, note) : null,
    h('div', { class: 'actions' }, button('json', 'Download certificate (JSON)'), button('pdf', 'Download certificate (PDF)')),
  );
};
