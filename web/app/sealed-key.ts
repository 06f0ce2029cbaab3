/// <reference lib="dom" />
/**
 * Whether this browser's key can open a request's credential, told before anyone presses Reveal:
 * a reveal is counted and audited, so it must not be spent on a key that cannot open it. The
 * request is sealed to the key the recipient had registered when it was created (or given a new
 * link); a browser holding another key, or none, cannot open it, and the member is told which key
 * it needs and what to do.
 */
import { fingerprintCode, h } from '../shared/dom.ts';
import type { IdentityKey } from './shapes.ts';

export interface SealedKeyFacts {
  /** The recipient's key the request is sealed to (GET /app/api/requests/{id} `your_key`). */
  sealedTo: Pick<IdentityKey, 'fingerprint' | 'made_by'>;
  /** The fingerprint of the key this browser holds, if any. */
  inBrowser: string | null;
  /** Whether the credential is already stored (submitted): a new link can no longer reseal it. */
  submitted: boolean;
}

/** What to do about a request sealed to the operator's key: set up a key of one's own first, unless this browser holds it already. */
const operatorKeyAdvice = (submitted: boolean, ownKeyHere: boolean) => {
  if (ownKeyHere) {
    return submitted
      ? ['Your own key, in this browser, came after this request, so it cannot open this one: ask for the credential again with a new request, then complete this one to destroy it.']
      : ['Your own key, in this browser, came after this request: give it a new link, which seals the credential to your own key.'];
  }
  return submitted
    ? ['Set up your own key on the My key page (it replaces the operator’s key at once); requests sent to you from then on can be opened in this browser.']
    : ['Set up your own key on the My key page (it replaces the operator’s key at once), then give this request a new link: the new link seals the credential to your own key.'];
};

/** Why this browser cannot open the request, as a notice (#sealed-key-notice); null when it can. */
export const sealedKeyNotice = ({ sealedTo: { fingerprint: sealedTo, made_by: madeBy }, inBrowser, submitted }: SealedKeyFacts) => {
  if (inBrowser === sealedTo) return null;
  const operatorMade = madeBy === 'operator';
  // Not yet submitted: the link as it stands seals to that key. "When submitted" would promise a
  // submission that a link flagged for a new one (beside this notice) can no longer make.
  const what = submitted ? 'This credential is sealed to' : 'Its link seals the credential to';
  const lines: Array<string | Node> = operatorMade
    ? [
        `${what} the key an operator made for you `,
        fingerprintCode(sealedTo),
        ', whose private half is in a file on their machine, never in a browser, so it cannot be opened here. ',
        ...operatorKeyAdvice(submitted, inBrowser !== null),
      ]
    : [
        `${what} your key `,
        fingerprintCode(sealedTo),
        ...(inBrowser
          ? [
              ', not to the key this browser holds ',
              fingerprintCode(inBrowser),
              '. Open it in a browser that still holds that key. Importing its backup here would replace this browser\u2019s key with it: the older key would then wait for an admin\u2019s approval, and what is sealed to your current key could not be opened here.',
            ]
          : [', and this browser holds no key. Import the backup of that key on the My key page to open it here.']),
      ];
  return h('p', { id: 'sealed-key-notice', class: 'notice', role: 'note' }, ...lines);
};
