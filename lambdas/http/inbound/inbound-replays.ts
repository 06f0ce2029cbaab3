import { sha256Hex } from '#core/hashing.ts';
import { signsTheBody } from '#core/inbound/auth-check.ts';
import type { InboundPurpose } from '#core/integration.ts';
import type { AdmittedPost, InboundPost } from '#core/use-cases/inbound/receive-post.ts';
import type { DynamoIdempotency } from '#store/idempotency.ts';
import { idempotency } from '../middleware/idempotency.ts';
import type { ApiMiddleware, ApiRequest, ApiState } from '../types.ts';

/** What the admission put in the call's state (inbound-handler.ts). */
const admittedOf = (state: ApiState) => state.inbound as { post: InboundPost; admitted: AdmittedPost };

/**
 * "The same body" of an inbound post: the same bytes (a signature covers them as sent), content
 * type (it decides how they are read) and, unless the integration signs its posts, query string
 * (fields may sit there too; a signed post's are never read, payloadOf). Only the hash is kept.
 */
const postFingerprint = (request: ApiRequest) => {
  const { post, admitted } = admittedOf(request.internal);
  const query = signsTheBody(admitted.integration.auth.mode) ? '' : (request.event.rawQueryString ?? '');
  return sha256Hex(Buffer.concat([Buffer.from(`${post.contentType ?? ''}\n${query}\n`), post.rawBody]));
};

/**
 * SPEC.md's idempotency rules on an inbound URL, for a sender that sends an `Idempotency-Key` (a
 * helpdesk's delivery id, say): at most 200 characters (422 otherwise); the same key and body
 * within 24 hours replays the 202; another body answers 422 `idempotency_key_reused`; a
 * concurrent duplicate 409. A key belongs to one URL of one integration: no other integration's
 * post (of this organisation or another) can be replayed its answer, and the webhook URL's keys
 * are apart from the trigger URL's.
 *
 * Unlike a member's or an API key's change, the answer is stored after the post is used, not in
 * its transaction: a status applied twice changes nothing more, and a repeated trigger meets the
 * trigger's duplicate guard, so a retry after a lost answer cannot create a second request.
 */
export const inboundReplays = (
  store: Pick<DynamoIdempotency, 'start' | 'finish' | 'release'>,
  purpose: InboundPurpose,
): ApiMiddleware =>
  idempotency(store, {
    ownerOf: (state) => `inbound:${admittedOf(state).admitted.integration.id}:${purpose}`,
    fingerprintOf: postFingerprint,
    // A post whose integration was rotated away (404) or disabled (409) while it was used answers
    // as one refused at admission, which claims no key: the sender's retry, to the new URL or once
    // the integration is enabled again, is used, not replayed that refusal.
    released: [404, 409],
  });
