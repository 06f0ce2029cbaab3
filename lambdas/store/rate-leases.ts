/**
 * Counts a function instance has reserved in the table ahead of the calls that use them.
 *
 * Counting every call with its own write costs a table write (and about a millisecond of SDK
 * work) on every API call, reads included. Instead an instance reserves several counts with one
 * ADD and hands them to its next calls one by one, in order, so each call still gets a count of
 * its own that no other call anywhere gets: a window never admits more calls than its limit.
 *
 * What a lease can cost is the other way round: counts an instance reserved and did not use
 * before the window ended (it went idle, or was recycled) are lost, so a caller spread over many
 * instances can be refused a little before its limit. A lease is therefore sized by what was left
 * of the limit at the instance's last decision: a twentieth of it, at most ten, and a single count
 * (no lease at all) on the first call of a window or when fewer than 40 calls are left. Near a
 * limit every call is counted in the table as it happens, so refusals there are exact.
 */

/** Of what is left of a limit, the share one instance may reserve at once. */
const SHARE_OF_HEADROOM = 20;
const LARGEST_LEASE = 10;
/** Keys whose leases one instance keeps; the oldest go first. */
const CAPACITY = 1000;

/** The counts a call was given: its place among the key's and the organisation's calls of the window. */
export interface Place {
  key: number;
  org: number;
}

interface Lease {
  windowStart: number;
  /** The next unused place. */
  next: Place;
  /** Places reserved and not yet handed out. */
  left: number;
  /** What was left of the tighter limit at the last decision, or null before the window's first. */
  headroom: number | null;
}

export class RateLeases {
  private readonly byCaller = new Map<string, Lease>();

  /** A place from a lease still open for this window, or null when a reservation is needed. */
  take(caller: string, windowStart: number): Place | null {
    const lease = this.byCaller.get(caller);
    if (!lease || lease.windowStart !== windowStart || lease.left === 0) return null;
    const place = { ...lease.next };
    lease.next = { key: lease.next.key + 1, org: lease.next.org + 1 };
    lease.left -= 1;
    return place;
  }

  /** How many counts to reserve for a caller whose lease is used up. */
  sizeFor(caller: string, windowStart: number): number {
    const lease = this.byCaller.get(caller);
    if (!lease || lease.windowStart !== windowStart || lease.headroom === null) return 1;
    return Math.max(1, Math.min(LARGEST_LEASE, Math.floor(lease.headroom / SHARE_OF_HEADROOM)));
  }

  /**
   * A reservation of `size` counts came back with the totals after it: the first place goes to
   * the call that made it, the rest to the calls after it. A newer reservation replaces an older
   * one (two calls that both found the lease used up); the older one's unused places are lost.
   */
  reserved(caller: string, windowStart: number, size: number, totals: Place): Place {
    const first = { key: totals.key - size + 1, org: totals.org - size + 1 };
    const previous = this.byCaller.get(caller);
    const headroom = previous?.windowStart === windowStart ? previous.headroom : null;
    this.byCaller.delete(caller);
    if (this.byCaller.size >= CAPACITY) this.byCaller.delete(this.byCaller.keys().next().value!);
    this.byCaller.set(caller, { windowStart, next: { key: first.key + 1, org: first.org + 1 }, left: size - 1, headroom });
    return first;
  }

  /** What the decision left of the tighter limit: the size of the caller's next lease follows from it. */
  decided(caller: string, windowStart: number, remaining: number) {
    const lease = this.byCaller.get(caller);
    if (lease?.windowStart === windowStart) lease.headroom = remaining;
  }
}
