import { REQUEST_TRAIL_TYPES } from '../../lambdas/core/request-trail-types.ts';

/**
 * The end-of-run check (global-setup.ts) that every audit entry the whole test run stored about a
 * request has a type of REQUEST_TRAIL_TYPES, which the member application labels: a new kind of
 * entry fails the run until it is listed there (and so labelled).
 */
export class TrailTypeCheck {
  private readonly listed = new Set<string>(REQUEST_TRAIL_TYPES);
  /** Entry types about a request that the list does not name, with how often each was seen. */
  readonly unlisted = new Map<string, number>();
  private seen = 0;

  visit(items: Array<Record<string, unknown>>) {
    for (const item of items) {
      if (item.kind !== 'audit' || typeof item.requestId !== 'string' || typeof item.type !== 'string') continue;
      this.seen += 1;
      if (!this.listed.has(item.type)) this.unlisted.set(item.type, (this.unlisted.get(item.type) ?? 0) + 1);
    }
  }

  summary() {
    if (this.unlisted.size === 0) return `Request trail types: ${this.seen} entries about requests, every type labelled.`;
    const types = [...this.unlisted].map(([type, count]) => `${type} (${count})`).join(', ');
    return `Request trail types: entries about requests of types not in REQUEST_TRAIL_TYPES (lambdas/core/request-trail-types.ts), so shown unlabelled in the member app: ${types}`;
  }
}
