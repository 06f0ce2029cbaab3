/**
 * The secrets a shell example's output showed, for looking for them in the table afterwards: the
 * secret fields of every JSON value in it (curl's answers, the CLI's results, glued together or
 * pretty-printed), the secret parts of every URL in it (the inbound URLs `--env` prints), and the
 * values given to the CLI's secret flags (npm echoes the command line it runs).
 */
import { secretPartsOf, secretsShownIn } from './secret-scan.ts';

const SECRET_FLAG_VALUE = /--(?:signing-secret|header-value|client-secret) ('[^']*'|"[^"]*"|\S+)/g;
const URL_IN_TEXT = /https?:\/\/[^\s"'<>]+/g;

/** Every JSON object in `text` that parses, each found by balancing its braces outside strings. */
export const jsonObjectsIn = (text: string): unknown[] => {
  const found: unknown[] = [];
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let at = start; at < text.length; at++) {
      const char = text[at];
      if (inString) {
        if (char === '\\') at++;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === '{') depth++;
      else if (char === '}' && --depth === 0) {
        try {
          found.push(JSON.parse(text.slice(start, at + 1)));
          start = at;
        } catch {
          // Braces that are no JSON (a shell line, a log's text): look on from the next one.
        }
        break;
      }
    }
  }
  return found;
};

/** Shorter values given to a secret flag are a placeholder's words (npm echoes `'<the secret>'` unquoted), never a secret. */
const MIN_FLAG_SECRET_LENGTH = 16;

export const secretsInShellOutput = (output: string): string[] => [
  ...jsonObjectsIn(output).flatMap(secretsShownIn),
  ...[...output.matchAll(URL_IN_TEXT)].flatMap(([url]) => secretPartsOf(url)),
  ...[...output.matchAll(SECRET_FLAG_VALUE)].map(([, value]) => value!.replace(/^['"]|['"]$/g, '')).filter((value) => value.length >= MIN_FLAG_SECRET_LENGTH),
];
