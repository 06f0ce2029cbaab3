/**
 * Every webhook address form SPEC.md refuses (https only, a public host): the same list is
 * checked at subscription (the URL check and POST /v1/webhooks) and at delivery (WebhookHttp).
 */
export const REFUSED_WEBHOOK_URLS = [
  // scheme and shape
  'http://example.com/hook',
  'ftp://example.com/hook',
  'not a url',
  '/relative/path',
  'https://user:pass@example.com/hook',
  // localhost names
  'https://localhost/hook',
  'https://localhost./hook',
  'https://LOCALHOST:8443/hook',
  'https://api.localhost/hook',
  'https://printer.local/hook',
  'https://service.internal/hook',
  'https://intranet/hook',
  // IPv4 loopback and numeric forms of it
  'https://127.0.0.1/hook',
  'https://127.9.8.7/hook',
  'https://2130706433/hook',
  'https://0x7f000001/hook',
  'https://0177.0.0.1/hook',
  'https://127.1/hook',
  'https://0x7f.1/hook',
  'https://017700000001/hook',
  // private
  'https://10.0.0.1/hook',
  'https://172.16.0.1/hook',
  'https://172.31.255.255/hook',
  'https://192.168.1.1/hook',
  'https://167772161/hook', // 10.0.0.1
  // link-local, CGNAT, documentation
  'https://169.254.169.254/latest/meta-data',
  'https://100.64.0.1/hook',
  'https://100.127.255.254/hook',
  'https://192.0.2.10/hook',
  'https://198.51.100.10/hook',
  'https://203.0.113.10/hook',
  // reserved, unspecified, broadcast, multicast
  'https://0.0.0.0/hook',
  'https://0/hook',
  'https://240.0.0.1/hook',
  'https://255.255.255.255/hook',
  'https://224.0.0.1/hook',
  'https://239.255.255.250/hook',
  // IPv6
  'https://[::1]/hook',
  'https://[::]/hook',
  'https://[fe80::1]/hook',
  'https://[febf::1]/hook',
  'https://[fc00::1]/hook',
  'https://[fd12:3456::1]/hook',
  'https://[ff02::1]/hook',
  'https://[2001:db8::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://[::ffff:169.254.169.254]/hook',
  'https://[0:0:0:0:0:0:0:1]/hook',
  // IPv4-compatible IPv6 (deprecated, ::/96)
  'https://[::127.0.0.1]/hook',
  'https://[::a00:1]/hook',
];
