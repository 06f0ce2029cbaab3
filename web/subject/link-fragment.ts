/**
 * The recipients' commitment a link carries after its `#`: 22 base64url characters (the first 16
 * bytes of a SHA-256, lambdas/core/commitment.ts).
 *
 * Links travel inside sentences and get pasted with what followed them: a full stop, a `>` or `)`
 * from a mail client, a space that the address bar escapes as `%20`. None of that is part of the
 * commitment, so only the leading run of base64url characters is read. A run shorter than a
 * commitment is a link cut short: no commitment at all, which the page reports as an incomplete
 * link (telling the subject the recipients changed would be a false alarm).
 */
export const COMMITMENT_LENGTH = 22;

export const commitmentFromFragment = (hash: string): string => {
  let text = hash.replace(/^#/, '').replace(/^c=/, '');
  try {
    text = decodeURIComponent(text);
  } catch {
    // A broken escape is damage after the commitment, like any other: the run before it is read.
  }
  const run = /^\s*([A-Za-z0-9_-]*)/.exec(text)![1];
  return run.length >= COMMITMENT_LENGTH ? run.slice(0, COMMITMENT_LENGTH) : '';
};
