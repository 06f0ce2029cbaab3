/**
 * Plain text as the HTML body a helpdesk takes (a Freshdesk or Freshservice reply's `body` is HTML): every character
 * that HTML reads as markup escaped, line breaks kept as `<br>`, and each https link made a link, its
 * `#fragment` included, so the customer can open it from the reply or its email as it was written.
 */

const LINK = /(https:\/\/[^\s<>"']+)/;

const escaped = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

export const plainTextAsHtml = (text: string): string =>
  text
    .split(LINK)
    // split with a capturing group puts the links at the odd positions.
    .map((part, index) => (index % 2 === 1 ? `<a href="${escaped(part)}">${escaped(part)}</a>` : escaped(part)))
    .join('')
    .replace(/\r?\n/g, '<br>');
