/**
 * tools/verify-custody-certificate.mjs, the single file auditors run, canonicalises JSON as
 * RFC 8785 says and as the service's canonicaliser (the `canonicalize` package) does: on the RFC's
 * own examples, on generated values, on a member named __proto__, and refusing a lone surrogate
 * with the same reason.
 */
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { json, thrown } from '../support/generated-certificates.ts';
import { loadStandaloneVerifier } from '../support/standalone-verifier.ts';

const standalone = await loadStandaloneVerifier();

describe('RFC 8785 canonical JSON, reimplemented in the file', () => {
  test('the RFC\'s own examples (sections 3.2.2 and 3.2.3)', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    expect(standalone.canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
    const sorting = JSON.parse(String.raw`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`);
    expect(standalone.canonicalJson(sorting)).toBe('{"\\r":2,"1":4,"\u0080":6,"ö":7,"€":1,"😀":5,"\ufb33":3}');
  });

  test('equals the canonicalize package on generated values, and on the same values read back from JSON text', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(standalone.canonicalJson(value)).toBe(canonicalize(value));
        const parsed = JSON.parse(JSON.stringify(value));
        expect(standalone.canonicalJson(parsed)).toBe(canonicalize(parsed));
      }),
      { numRuns: 2000 },
    );
  });

  test('a member named __proto__, as JSON.parse makes it, is a member like any other', () => {
    const parsed = JSON.parse('{"b":1,"__proto__":{"x":[1,2]},"a":null}');
    expect(standalone.canonicalJson(parsed)).toBe(canonicalize(parsed));
    expect(standalone.canonicalJson(parsed)).toBe('{"__proto__":{"x":[1,2]},"a":null,"b":1}');
  });

  test('refuses a lone surrogate, in a value or a name, with the package\'s reason', () => {
    for (const value of [JSON.parse('"\\ud800"'), { ['\udc00']: 1 }, ['ok', 'x\ud83d'], { a: { b: '\ude00y' } }]) {
      expect(thrown(() => standalone.canonicalJson(value))).toEqual(thrown(() => canonicalJson(value)));
      expect(thrown(() => standalone.canonicalJson(value)).error).toBe('Lone surrogate is not allowed');
    }
  });
});
