import * as z from 'zod/mini';
import type { Clock } from '../../clock.ts';
import { canonicalJson } from '../../custody/canonical.ts';
import { buildRequestCertificate, buildShareCertificate, type CertificateContext } from '../../custody/build-certificate.ts';
import type { TableBackups } from '../../custody/backups.ts';
import type { SignedCertificate } from '../../custody/document.ts';
import { notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { HandoffRequest, Organisation } from '../../model.ts';
import type { CertificateSource } from '../../ports.ts';
import type { PublicUrls } from '../../request-view.ts';
import type { Share } from '../../share.ts';
import type { CertificateSigner } from './certificate-signer.ts';

export const CERTIFICATE_FORMATS = ['json', 'pdf'] as const;
/** Strict: a parameter it does not define answers 422, as on every operation (http/query-rule.ts). */
export const certificateQuery = z.strictObject({ format: z._default(z.enum(CERTIFICATE_FORMATS), 'json') });

export interface CertificateDeps {
  clock: Clock;
  urls: PublicUrls;
  certificates: CertificateSource;
  signer: CertificateSigner;
  /** What the table's backups keep, so each certificate says until when a destroyed ciphertext stays restorable. */
  backups: TableBackups;
}

/** Who may see the record: the organisation, and for a client-scoped key only its client's records. */
export interface CertificateViewer {
  org: Organisation;
  /** Null: every client of the organisation. */
  clientId: string | null;
}

export interface IssuedCertificate {
  certificate: SignedCertificate;
  /** The served bytes: the RFC 8785 canonical JSON of the signed document. */
  json: string;
}

export const ISSUER_NAME = 'Credential Handoff Service';

/** Where the published keys are: `{app_url}/.well-known/jwks.json`. */
export const jwksUrl = (urls: PublicUrls) => `${urls.appUrl}/.well-known/jwks.json`;

const contextFor = async (deps: CertificateDeps, org: Organisation, entries: CertificateContext['entries']): Promise<CertificateContext> => ({
  certificateId: newId(),
  issuedAt: deps.clock.now().toISOString(),
  issuer: { name: ISSUER_NAME, app_url: deps.urls.appUrl, jwks_url: jwksUrl(deps.urls) },
  organisation: { id: org.id, name: org.name },
  head: await deps.certificates.head(org.id),
  entries,
  backups: deps.backups,
});

const signed = async (deps: CertificateDeps, document: Parameters<CertificateSigner['sign']>[0]): Promise<IssuedCertificate> => {
  const certificate = await deps.signer.sign(document);
  return { certificate, json: canonicalJson(certificate) };
};

/** The custody certificate of a request visible to the viewer; 404 otherwise. */
export const issueRequestCertificate = async (deps: CertificateDeps, viewer: CertificateViewer, request: HandoffRequest | null) => {
  if (!request || request.orgId !== viewer.org.id || (viewer.clientId !== null && viewer.clientId !== request.client.id)) {
    throw notFound('No request with this id.');
  }
  const entries = await deps.certificates.entriesOfRequest(request.orgId, request.id);
  const fallback = {
    recipients: request.recipients.map((r) => ({ membership_id: r.membershipId, label: r.label, fingerprint: r.fingerprint })),
    commitment: { value: request.commit, computed_by: 'server' as const },
  };
  return signed(deps, buildRequestCertificate(await contextFor(deps, viewer.org, entries), request.id, fallback));
};

/** The custody certificate of a share; shares belong to no client, so a client-scoped key sees none. */
export const issueShareCertificate = async (deps: CertificateDeps, viewer: CertificateViewer, share: Share | null) => {
  if (!share || share.orgId !== viewer.org.id || viewer.clientId !== null) throw notFound('No share with this id.');
  const entries = await deps.certificates.entriesOfShare(share.orgId, share.id);
  return signed(deps, buildShareCertificate(await contextFor(deps, viewer.org, entries), share.id));
};
