import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPublicAddress } from '../../lambdas/core/webhook-url.ts';
import { REFUSED_WEBHOOK_URLS } from '../support/refused-webhook-urls.ts';

const refused = REFUSED_WEBHOOK_URLS;

const accepted = [
  'https://example.com/hook',
  'https://hooks.example.com:8443/a/b?c=d',
  'https://cafe.be/hook',
  'https://8.8.8.8/hook',
  'https://1.1.1.1:443/hook',
  'https://[2606:4700:4700::1111]/hook',
  'https://[::ffff:8.8.8.8]/hook',
  'https://172.32.0.1/hook',
  'https://100.128.0.1/hook',
];

describe('checkWebhookUrl', () => {
  it.each(refused)('refuses %s', (url) => {
    const check = checkWebhookUrl(url);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(/\w/);
  });

  it.each(accepted)('accepts %s', (url) => {
    const check = checkWebhookUrl(url);
    expect(check).toEqual({ ok: true, url: new URL(url).href });
  });

  it('refuses port 0, which the URL parser takes but nothing can be reached on, even on loopback', () => {
    for (const url of ['https://example.com:0/x', 'https://8.8.8.8:00/x', 'http://127.0.0.1:0/hook']) {
      expect(checkWebhookUrl(url, { allowLoopback: true }), url).toEqual({ ok: false, reason: 'Must name a port from 1 to 65535, or none.' });
    }
  });

  it('refuses loopback and http by default, and allows them only with allowLoopback', () => {
    for (const url of ['http://127.0.0.1:4000/hook', 'http://localhost:4000/hook', 'http://[::1]:4000/hook']) {
      expect(checkWebhookUrl(url).ok, url).toBe(false);
      expect(checkWebhookUrl(url, { allowLoopback: true }), url).toEqual({ ok: true, url: new URL(url).href });
    }
    // The opt-in covers loopback only: other private or plain-http hosts stay refused.
    for (const url of ['http://10.0.0.1:4000/hook', 'http://example.com/hook', 'https://192.168.0.1/hook', 'https://169.254.169.254/']) {
      expect(checkWebhookUrl(url, { allowLoopback: true }).ok, url).toBe(false);
    }
  });
});

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.5.4', '192.168.0.1', '169.254.169.254', '100.64.0.1', '192.0.2.1',
    '198.51.100.1', '203.0.113.1', '0.0.0.0', '240.0.0.1', '255.255.255.255', '224.0.0.251',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd00::1', 'ff02::1', '2001:db8::1', '::ffff:127.0.0.1',
    '::ffff:192.168.0.1', '[::1]', 'not-an-ip', '', '2130706433',
  ])('is false for %s', (ip) => expect(isPublicAddress(ip)).toBe(false));

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8', '[2606:4700::1]'])(
    'is true for %s',
    (ip) => expect(isPublicAddress(ip)).toBe(true),
  );
});
