import { describe, expect, it } from 'vitest';
import { commitmentFromFragment } from '../../web/subject/link-fragment.ts';

const COMMIT = 'q3Z-8_kLm0PqRsTuVwXyZa';

describe('commitmentFromFragment', () => {
  it.each([
    ['the fragment as sent', `#${COMMIT}`],
    ['the older c= form', `#c=${COMMIT}`],
    ['a full stop after the link', `#${COMMIT}.`],
    ['a mail client\'s closing bracket', `#${COMMIT}>`],
    ['a space escaped by the address bar', `#${COMMIT}%20`],
    ['a closing parenthesis and a comma', `#${COMMIT}),`],
    ['a broken escape after it', `#${COMMIT}%2`],
    ['words run on after it', `#${COMMIT}Thanks`],
  ])('reads the commitment from %s', (_, hash) => {
    expect(commitmentFromFragment(hash)).toBe(COMMIT);
  });

  it.each([
    ['no fragment', ''],
    ['an empty fragment', '#'],
    ['a fragment cut to 12 characters', `#${COMMIT.slice(0, 12)}`],
    ['a fragment cut to 21 characters and a full stop', `#${COMMIT.slice(0, 21)}.`],
  ])('reads no commitment from %s (an incomplete link)', (_, hash) => {
    expect(commitmentFromFragment(hash)).toBe('');
  });
});
