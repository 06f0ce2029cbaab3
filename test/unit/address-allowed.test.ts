import { describe, expect, it } from 'vitest';
import { addressAllowed } from '../../lambdas/core/address-allowlist.ts';

describe('addressAllowed', () => {
  it('allows everything when the allowlist is empty', () => {
    expect(addressAllowed('203.0.113.7', [])).toBe(true);
    expect(addressAllowed('2001:db8::1', [])).toBe(true);
  });

  it('matches an exact IPv4 address', () => {
    expect(addressAllowed('10.1.2.3', ['10.1.2.3'])).toBe(true);
    expect(addressAllowed('10.1.2.4', ['10.1.2.3'])).toBe(false);
  });

  it('matches an IPv4 CIDR block', () => {
    expect(addressAllowed('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(addressAllowed('10.255.255.255', ['10.0.0.0/8'])).toBe(true);
    expect(addressAllowed('11.0.0.0', ['10.0.0.0/8'])).toBe(false);
    expect(addressAllowed('192.168.1.130', ['192.168.1.128/25'])).toBe(true);
    expect(addressAllowed('192.168.1.127', ['192.168.1.128/25'])).toBe(false);
    expect(addressAllowed('10.1.2.3', ['10.1.2.3/32'])).toBe(true);
    expect(addressAllowed('8.8.8.8', ['0.0.0.0/0'])).toBe(true);
  });

  it('matches IPv6 exact addresses and CIDR blocks', () => {
    expect(addressAllowed('2001:db8::1', ['2001:db8::/32'])).toBe(true);
    expect(addressAllowed('2001:db8:ffff::1', ['2001:db8::/32'])).toBe(true);
    expect(addressAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(addressAllowed('2001:db8::1', ['2001:0db8:0000:0000:0000:0000:0000:0001'])).toBe(true);
    expect(addressAllowed('2001:db8::2', ['2001:db8::1'])).toBe(false);
  });

  it('treats an IPv4-mapped IPv6 caller as its IPv4 address', () => {
    expect(addressAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(addressAllowed('::ffff:10.1.2.3', ['10.1.2.3'])).toBe(true);
    expect(addressAllowed('::ffff:11.1.2.3', ['10.0.0.0/8'])).toBe(false);
  });

  it('never matches across families', () => {
    expect(addressAllowed('10.1.2.3', ['2001:db8::/32'])).toBe(false);
    expect(addressAllowed('2001:db8::1', ['10.0.0.0/8'])).toBe(false);
    expect(addressAllowed('2001:db8::1', ['0.0.0.0/0'])).toBe(false);
  });

  it('allows when any entry matches', () => {
    expect(addressAllowed('192.0.2.9', ['10.0.0.0/8', '192.0.2.0/24'])).toBe(true);
  });

  it('refuses rather than throws on malformed entries, and still honours a good entry beside them', () => {
    const bad = ['not-an-ip', '10.0.0.0/33', '10.0.0.0/abc', '', '::1/200', '/8', '10.0.0.0/', '300.1.1.1'];
    expect(() => addressAllowed('10.1.2.3', bad)).not.toThrow();
    expect(addressAllowed('10.1.2.3', bad)).toBe(false);
    for (const entry of bad) expect(addressAllowed('10.1.2.3', [entry]), entry).toBe(false);
    expect(addressAllowed('10.1.2.3', [...bad, '10.1.0.0/16'])).toBe(true);
  });

  it('reads no legacy IPv4 form in an entry (zero-padded octets are not octal, short forms match nothing)', () => {
    // ipaddr.js alone reads '010.0.0.0/8' as octal 8.0.0.0/8 and '10.1' as 10.0.0.1.
    expect(addressAllowed('8.1.2.3', ['010.0.0.0/8'])).toBe(false);
    expect(addressAllowed('8.0.0.1', ['010.0.0.1'])).toBe(false);
    expect(addressAllowed('10.0.0.1', ['0xa.0.0.1'])).toBe(false);
    expect(addressAllowed('10.0.0.1', ['10.1'])).toBe(false);
    expect(addressAllowed('10.0.0.1', ['167772161'])).toBe(false);
    expect(addressAllowed('10.0.0.1', ['10.0.0.1', '010.0.0.0/8'])).toBe(true);
  });

  it('refuses a malformed caller address', () => {
    expect(addressAllowed('garbage', ['10.0.0.0/8'])).toBe(false);
    expect(addressAllowed('', ['10.0.0.0/8'])).toBe(false);
  });
});
