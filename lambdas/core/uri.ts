/**
 * A URL as the service stores and answers it: WHATWG-parsed (`new URL(...).href`: host in
 * punycode, spaces and non-ASCII escaped), then with the characters RFC 3986 still does not allow
 * (`|`, `^`, `` ` ``, `{`, `}`, `\`) escaped too, so a client that checks `format: uri` reads every
 * answer that holds it. A `%` that begins no escape of two hex digits cannot be made right without
 * guessing what was meant: such a URL is refused (null).
 */
const OUTSIDE_RFC_3986 = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g;
const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

export const BROKEN_ESCAPE_MESSAGE = 'Must be a URL whose every % begins an escape of two hex digits.';

export const uriOf = (url: URL): string | null => {
  const href = url.href.replace(OUTSIDE_RFC_3986, (character) => encodeURIComponent(character));
  return BROKEN_ESCAPE.test(href) ? null : href;
};

/** Text that parses as a URL, as uriOf has it; any other text as it is (its own check refuses it). */
export const uriOfText = (text: string): string | null => (URL.canParse(text) ? uriOf(new URL(text)) : text);
