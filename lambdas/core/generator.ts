import { randomInt } from 'node:crypto';
import { EFF_LARGE_WORDLIST } from './eff-large-wordlist.ts';

/** The EFF large Diceware list: 7,776 words, about 12.9 bits each. */
const WORDS: string[] = EFF_LARGE_WORDLIST.split(' ');

export const PASSPHRASE_WORDS = 6;
const CLASSES = {
  lower: 'abcdefghijklmnopqrstuvwxyz',
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  digits: '0123456789',
  symbols: '!@#$%^&*()-_=+[]{};:,.?/',
} as const;
export type CharacterClass = keyof typeof CLASSES;

const pick = (alphabet: string) => alphabet[randomInt(alphabet.length)];

/** Fisher-Yates with a cryptographic source, so the guaranteed characters land anywhere. */
const shuffle = (chars: string[]) => {
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars;
};

/** A random password of `length` characters holding at least one of each selected class. */
export const generatePassword = (length: number, classes: CharacterClass[]) => {
  if (classes.length === 0) throw new Error('at least one character class is needed');
  if (length < classes.length) throw new Error('length is shorter than the number of classes');
  const alphabet = classes.map((c) => CLASSES[c]).join('');
  const chars = classes.map((c) => pick(CLASSES[c]));
  while (chars.length < length) chars.push(pick(alphabet));
  return shuffle(chars).join('');
};

export const generatePassphrase = (words = PASSPHRASE_WORDS) =>
  Array.from({ length: words }, () => WORDS[randomInt(WORDS.length)]).join('-');

export const wordListSize = () => WORDS.length;
export const isListedWord = (word: string) => WORDS.includes(word);
