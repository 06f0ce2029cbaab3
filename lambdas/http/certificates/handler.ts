import type { Context } from 'aws-lambda';
import { notFound } from '#core/errors.ts';
import { isId } from '#core/ids.ts';
import { findMemberRequest } from '#core/use-cases/member-requests.ts';
import { findMemberShare } from '#core/use-cases/shares/member-shares.ts';
import {
  certificateQuery,
  issueRequestCertificate,
  issueShareCertificate,
  type IssuedCertificate,
} from '#core/use-cases/certificates/issue-certificate.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withCertificateSource, withShareStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { signerOf } from '../../certificate-signing.ts';
import { tableBackupsOf } from '../../table-backups.ts';
import { apiHandler } from '../api-handler.ts';
import { namedById } from '../middleware/read-trail.ts';
import { parseQuery } from '../query-schema.ts';
import { sessionHandler } from '../app/session-handler.ts';
import { TRANSPORT_HEADERS, withHeaders } from '../responses.ts';
import type { ApiEvent, ApiLambda, ApiResult } from '../types.ts';

/**
 * The custody certificate function: GET /v1/requests/{id}/certificate and
 * GET /v1/shares/{id}/certificate for API keys (`events:read`), and the same two under /app/api
 * for signed-in members. One function for the four, so only it bundles the PDF renderer.
 */
type Kind = 'requests' | 'shares';
const CERTIFICATE_PATH = /^\/(v1|app\/api)\/(requests|shares)\/[^/]+\/certificate$/;

const kindOf = (event: ApiEvent): Kind => (CERTIFICATE_PATH.exec(event.rawPath)?.[2] === 'shares' ? 'shares' : 'requests');

const idOf = (event: ApiEvent, kind: Kind) => {
  const id = event.pathParameters?.id;
  if (!isId(id)) throw notFound(kind === 'requests' ? 'No request with this id.' : 'No share with this id.');
  return id;
};

const fileNameOf = ({ certificate }: IssuedCertificate) =>
  `custody-certificate-${certificate.subject_kind === 'request' ? certificate.request.id : certificate.share.id}`;

/**
 * The PDF renderer, imported on the first PDF asked for: pdfkit is most of this function's code and
 * a JSON certificate never needs it. The stack bundles it as a file of its own beside the handler
 * (lib/certificate-bundle.ts), which only a PDF loads.
 */
const pdfRenderer = () => import('./render-pdf.ts');

/** The JSON exactly as signed and hashed, or the PDF made from it; never cached. */
const answer = async (issued: IssuedCertificate, format: 'json' | 'pdf'): Promise<ApiResult> => {
  const name = fileNameOf(issued);
  if (format === 'json') {
    return {
      statusCode: 200,
      headers: { ...TRANSPORT_HEADERS, 'Cache-Control': 'no-store', 'Content-Type': 'application/json', 'Content-Disposition': `inline; filename="${name}.json"` },
      body: issued.json,
    };
  }
  const { renderCertificatePdf } = await pdfRenderer();
  const pdf = await renderCertificatePdf(issued.certificate, issued.json);
  return {
    statusCode: 200,
    headers: { ...TRANSPORT_HEADERS, 'Cache-Control': 'no-store', 'Content-Type': 'application/pdf', 'Content-Disposition': `attachment; filename="${name}.pdf"` },
    body: pdf.toString('base64'),
    isBase64Encoded: true,
  };
};

const formatOf = (event: ApiEvent) => parseQuery(certificateQuery, event).format;

export const createHandler = (appDeps: AppDeps): ApiLambda => {
  const deps = { ...withShareStore(withCertificateSource(appDeps)), signer: signerOf(appDeps), backups: tableBackupsOf(appDeps) };
  const api = apiHandler(deps, {
    scope: 'events:read',
    query: formatOf,
    reads: { named: (event) => namedById(kindOf(event))(event) },
    handle: async ({ caller, event, query: format, noteRead }) => {
      const kind = kindOf(event);
      const viewer = { org: caller.org, clientId: caller.apiKey.clientId };
      const id = idOf(event, kind);
      const issued =
        kind === 'requests'
          ? await issueRequestCertificate(deps, viewer, await deps.requests.get(id))
          : await issueShareCertificate(deps, viewer, await deps.shares.get(id));
      await noteRead({ [kind]: [id] });
      return answer(issued, format);
    },
  });
  const app = sessionHandler(deps, async ({ caller, event }) => {
    const kind = kindOf(event);
    const format = formatOf(event);
    // A member gets the certificates of what the member may see (their requests, or all for managers; their shares).
    const viewer = { org: caller.org, clientId: null };
    const id = idOf(event, kind);
    const issued =
      kind === 'requests'
        ? await issueRequestCertificate(deps, viewer, (await findMemberRequest(deps.requests, caller, id)).request)
        : await issueShareCertificate(deps, viewer, await findMemberShare(deps, caller, id));
    return answer(issued, format);
  }, { readsQuery: true });
  // Every answer no-store, its refusals too (a member's answers are already): a certificate is the organisation's record.
  const apiNeverCached = async (event: ApiEvent, context: Context) => withHeaders(await api(event, context), { 'Cache-Control': 'no-store' });
  return ((event: ApiEvent, context: Context) => (event.rawPath.startsWith('/app/') ? app(event, context) : apiNeverCached(event, context))) as ApiLambda;
};

let built: ApiLambda | undefined;
export const handler = (event: ApiEvent, context: Context) => (built ??= createHandler(wiring()))(event, context);
