import { describe, expect, it } from 'vitest';
import { REQUEST_TRAIL_TYPES } from '../../lambdas/core/request-trail-types.ts';
import { TRAIL_TEXT } from '../../web/app/labels.ts';
import { TrailTypeCheck } from '../support/trail-type-check.ts';

describe("a request trail's entry types", () => {
  it('each has words in the member app, and the app has words for no other type', () => {
    expect(Object.keys(TRAIL_TEXT).sort()).toEqual([...REQUEST_TRAIL_TYPES].sort());
    for (const text of Object.values(TRAIL_TEXT)) expect(text).toMatch(/^[A-Z][^.]*[a-z]$/);
  });

  it('the end-of-run check names an entry about a request whose type is not listed, and passes listed ones and entries about no request', () => {
    const check = new TrailTypeCheck();
    check.visit([
      { kind: 'audit', requestId: '01J00000000000000000000000', type: 'subject.verified' },
      { kind: 'audit', requestId: null, type: 'api_key.created' },
      { kind: 'request', requestId: '01J00000000000000000000000', type: 'whatever' },
    ]);
    expect(check.unlisted.size).toBe(0);
    check.visit([{ kind: 'audit', requestId: '01J00000000000000000000000', type: 'request.teleported' }]);
    expect([...check.unlisted.keys()]).toEqual(['request.teleported']);
    expect(check.summary()).toContain('request.teleported (1)');
  });
});
