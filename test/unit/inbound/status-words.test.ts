import { describe, expect, it } from 'vitest';
import { isBuiltInWord, mergeStatusMaps, normaliseTicketStatus, parseStatusMap } from '../../../lambdas/core/inbound/status-words.ts';

const SPEC_WORDS = [
  ['open', 'open'],
  ['new', 'open'],
  ['pending', 'pending'],
  ['on hold', 'pending'],
  ['resolved', 'resolved'],
  ['solved', 'resolved'],
  ['closed', 'closed'],
  ['complete', 'closed'],
  ['completed', 'closed'],
] as const;

const title = (word: string) => word.replace(/\b\w/g, (letter) => letter.toUpperCase());
const mixed = (word: string) => [...word].map((letter, index) => (index % 2 ? letter.toUpperCase() : letter)).join('');

describe('normaliseTicketStatus', () => {
  it.each(SPEC_WORDS)('understands "%s" in any capitals and spacing as %s', (word, status) => {
    for (const variant of [word, word.toUpperCase(), title(word), mixed(word), `  ${word}\t`, `\n${word.toUpperCase()} `]) {
      expect(normaliseTicketStatus(variant)).toEqual({ status, word });
    }
  });

  it('reads a word with a combining accent as the same word with the accented letter (NFC), in the map and as posted', () => {
    const composed = 'Gel\u00f6st';
    const decomposed = 'Gelo\u0308st';
    expect(normaliseTicketStatus(decomposed, { [composed]: 'resolved' })).toEqual({ status: 'resolved', word: 'gel\u00f6st' });
    expect(normaliseTicketStatus(composed, { [decomposed]: 'resolved' })).toEqual({ status: 'resolved', word: 'gel\u00f6st' });
    expect(mergeStatusMaps({ [composed.toLowerCase()]: 'resolved' }, { [decomposed]: 'closed' })).toEqual({ 'gel\u00f6st': 'closed' });
  });

  it('collapses inner whitespace', () => {
    expect(normaliseTicketStatus('On   Hold')).toEqual({ status: 'pending', word: 'on hold' });
    expect(normaliseTicketStatus(' on\t\nhold ')).toEqual({ status: 'pending', word: 'on hold' });
  });

  it('gives unknown words as unknown, echoing the normalised word', () => {
    expect(normaliseTicketStatus('Waiting on Customer')).toEqual({ status: 'unknown', word: 'waiting on customer' });
    expect(normaliseTicketStatus('hold')).toEqual({ status: 'unknown', word: 'hold' });
    expect(normaliseTicketStatus('closedd')).toEqual({ status: 'unknown', word: 'closedd' });
    expect(normaliseTicketStatus('unknown')).toEqual({ status: 'unknown', word: 'unknown' });
    expect(normaliseTicketStatus('constructor')).toEqual({ status: 'unknown', word: 'constructor' });
    expect(normaliseTicketStatus(5)).toEqual({ status: 'unknown', word: '5' });
    expect(normaliseTicketStatus(true)).toEqual({ status: 'unknown', word: 'true' });
  });

  it('gives no word for values that are not text, numbers or booleans', () => {
    for (const raw of [undefined, null, {}, { status: 'closed' }, ['closed'], Number.NaN, Infinity, '', '   ']) {
      expect(normaliseTicketStatus(raw)).toEqual({ status: 'unknown', word: null });
    }
  });

  it('caps the echoed word at 100 characters', () => {
    const long = `${'x'.repeat(150)}`;
    expect(normaliseTicketStatus(long)).toEqual({ status: 'unknown', word: 'x'.repeat(100) });
  });

  it('looks the status map up first, with keys compared the same normalised way', () => {
    const map = { '4': 'resolved', 'Waiting on  Customer': 'pending', Open: 'pending', TRUE: 'closed' } as const;
    expect(normaliseTicketStatus(4, map)).toEqual({ status: 'resolved', word: '4' });
    expect(normaliseTicketStatus(' 4 ', map)).toEqual({ status: 'resolved', word: '4' });
    expect(normaliseTicketStatus('waiting ON customer', map)).toEqual({ status: 'pending', word: 'waiting on customer' });
    // The map overrides SPEC's own words.
    expect(normaliseTicketStatus('open', map)).toEqual({ status: 'pending', word: 'open' });
    expect(normaliseTicketStatus(true, map)).toEqual({ status: 'closed', word: 'true' });
    // Words the map does not name still fall back to SPEC's.
    expect(normaliseTicketStatus('Solved', map)).toEqual({ status: 'resolved', word: 'solved' });
    expect(normaliseTicketStatus(5, map)).toEqual({ status: 'unknown', word: '5' });
  });

  it('ignores map entries whose target is not a known status', () => {
    const map = { '4': 'unknown', '5': 'deleted' } as unknown as Record<string, 'closed'>;
    expect(normaliseTicketStatus(4, map)).toEqual({ status: 'unknown', word: '4' });
    expect(normaliseTicketStatus('5', map)).toEqual({ status: 'unknown', word: '5' });
  });

  it('does not find built-ins through the map', () => {
    expect(normaliseTicketStatus('toString', {})).toEqual({ status: 'unknown', word: 'tostring' });
    expect(normaliseTicketStatus('__proto__', {})).toEqual({ status: 'unknown', word: '__proto__' });
    // A map read from storage is a plain object: only its own entries are words, never what it inherits.
    const inherited = Object.create({ done: 'closed' }) as Record<string, 'closed'>;
    expect(normaliseTicketStatus('done', inherited)).toEqual({ status: 'unknown', word: 'done' });
  });
});

describe('isBuiltInWord', () => {
  it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'TOSTRING', ' Constructor '])(
    '"%s" names a built-in property of every object, in any capitals',
    (word) => expect(isBuiltInWord(word)).toBe(true),
  );

  it.each(['solved', 'to string', 'proto', 'constructors', '4', 'Waiting on customer'])('"%s" is an ordinary word', (word) => expect(isBuiltInWord(word)).toBe(false));
});

describe('parseStatusMap', () => {
  it('reads word=status pairs', () => {
    expect(parseStatusMap('Solved=closed,4=resolved')).toEqual({ Solved: 'closed', '4': 'resolved' });
    expect(parseStatusMap(' Waiting on Customer = Pending , 2=OPEN, ')).toEqual({ 'Waiting on Customer': 'pending', '2': 'open' });
    expect(parseStatusMap('')).toEqual({});
  });

  it('reads one pair a line too, as the member app sends them', () => {
    expect(parseStatusMap('Parked=pending\r\nDone=closed\n\n4=resolved, 5=closed')).toEqual({ Parked: 'pending', Done: 'closed', '4': 'resolved', '5': 'closed' });
  });

  it('makes maps normaliseTicketStatus uses', () => {
    const map = parseStatusMap('Solved=closed,4=resolved');
    expect(normaliseTicketStatus('SOLVED', map)).toEqual({ status: 'closed', word: 'solved' });
    expect(normaliseTicketStatus(4, map)).toEqual({ status: 'resolved', word: '4' });
  });

  it('keeps a __proto__ word as a plain key', () => {
    const map = parseStatusMap('__proto__=closed');
    expect(Object.hasOwn(map, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect(normaliseTicketStatus('__proto__', map)).toEqual({ status: 'closed', word: '__proto__' });
  });

  it('throws naming the bad pair', () => {
    expect(() => parseStatusMap('Solved=closed,4=deleted')).toThrow('Bad status map pair "4=deleted"');
    expect(() => parseStatusMap('4=unknown')).toThrow('Bad status map pair "4=unknown"');
    expect(() => parseStatusMap('Solved')).toThrow('Bad status map pair "Solved"');
    expect(() => parseStatusMap('=closed')).toThrow('Bad status map pair "=closed"');
    expect(() => parseStatusMap('a=')).toThrow('Bad status map pair "a="');
  });
});

describe('mergeStatusMaps', () => {
  it('keeps one entry per word in any capitals, the later one winning, stored lower case', () => {
    expect(mergeStatusMaps({ solved: 'resolved', '4': 'resolved' }, { Solved: 'closed', ' On  Hold ': 'pending' })).toEqual({
      solved: 'closed',
      '4': 'resolved',
      'on hold': 'pending',
    });
  });

  it('drops entries whose target is not a known status', () => {
    expect(mergeStatusMaps({ done: 'finished' as never, open: 'open' })).toEqual({ open: 'open' });
  });
});
