import { describe, expect, it } from 'vitest';
import { typedCodeOf } from '../../web/subject/typed-code.ts';

describe("a subject's typed code", () => {
  it.each([
    ['740524', '740524'],
    ['740 524', '740524'],
    ['740-524', '740524'],
    ['740–524', '740524'], // an en dash, as a phone's autocorrect makes one
    ['١٩٣٠٤٢', '193042'], // Arabic-Indic
    ['۱۴۴۹۷۵', '144975'], // Persian
    ['१२३४५६', '123456'], // Devanagari
    ['１９９４５１', '199451'], // full-width
    ['๐๑๒๓๔๕', '012345'], // Thai
    ['𝟎𝟗𝟖𝟕𝟏𝟐', '098712'], // mathematical bold digits, the first of five sets in one run
    ['𝟶𝟿𝟾', '098'], // mathematical monospace digits, the last set of that run
  ])('%s is %s', (typed, code) => {
    expect(typedCodeOf(typed)).toBe(code);
  });

  it('leaves what is not a digit for the service to refuse', () => {
    expect(typedCodeOf('74O524')).toBe('74O524');
    expect(typedCodeOf('½12345')).toBe('½12345');
  });
});
