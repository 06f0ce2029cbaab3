/// <reference lib="dom" />
import { h } from '../shared/dom.ts';

/**
 * Says, beside the form, exactly what the subject's browser encrypts and what the service can
 * still see, so nobody puts a secret where it would travel in the clear.
 */
export const encryptionNotice = (takesFiles: boolean) =>
  h(
    'div',
    { id: 'encryption-notice', class: 'notice' },
    h('h3', {}, 'What is encrypted'),
    h(
      'p',
      {},
      takesFiles
        ? 'Encrypted in this browser, before anything is sent, so that only the people named above can open it: the password, your note, and each file with its name and type.'
        : 'Encrypted in this browser, before anything is sent, so that only the people named above can open it: the password and your note.',
    ),
    h(
      'p',
      {},
      takesFiles
        ? 'Not encrypted: that you sent something and when, how many files, and roughly how large each part is. The service keeps only the encrypted copy, and destroys it when the request ends.'
        : 'Not encrypted: that you sent something and when, and roughly how long it is. The service keeps only the encrypted copy, and destroys it when the request ends.',
    ),
  );
