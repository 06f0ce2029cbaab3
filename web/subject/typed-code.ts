/**
 * A code as the subject typed it, made into the six ASCII digits the service compares.
 *
 * People read a code out in groups ("740 524", "740-524"), so spaces and dashes are dropped. And a
 * phone's keyboard or an input method may type the digits of another script: Arabic-Indic
 * (٧٤٠), Persian (۷۴۰), Devanagari (७४०), full-width (７４０). Each is the same digit, so each
 * becomes its ASCII digit here rather than the code being refused as not a code.
 */
const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * The value of a Unicode decimal digit. Unicode encodes decimal digits in runs of whole 0-to-9
 * sets in order (the mathematical digits are five sets in one run), so the digit is its distance
 * from the start of its run, modulo 10.
 */
const digitValue = (codePoint: number) => {
  let start = codePoint;
  while (start > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (codePoint - start) % 10;
};

export const typedCodeOf = (typed: string) =>
  Array.from(typed.replace(/[\s\-‐-―−]+/gu, ''))
    .map((character) => (DECIMAL_DIGIT.test(character) ? String(digitValue(character.codePointAt(0)!)) : character))
    .join('');
