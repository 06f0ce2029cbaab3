import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelpdeskHttp } from '../../lambdas/adapters/helpdesks/helpdesk-http.ts';
import { HelpdeskTargetRefused, pinnedFetch } from '../../lambdas/adapters/helpdesks/pinned-fetch.ts';
import type { Resolver } from '../../lambdas/adapters/public-address.ts';
import { HelpdeskCallFailed } from '../../lambdas/core/helpdesk.ts';

/**
 * The helpdesk adapters connect only to a public address of the helpdesk's host, checked as they
 * connect, as the webhook client does: a helpdesk URL whose name resolves to loopback, a private
 * or a metadata address gets no connection (so no credential), and the connection goes to the
 * address checked, not to whatever a second resolution answers.
 */

let tcp: TcpServer;
let tcpPort: number;
let connections = 0;
let web: Server;
let webPort: number;

beforeAll(async () => {
  tcp = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((done) => tcp.listen(0, '127.0.0.1', done));
  tcpPort = (tcp.address() as AddressInfo).port;
  web = createHttpServer((req, res) => res.writeHead(200, { 'Content-Type': 'application/json', 'X-Seen-Host': req.headers.host ?? '' }).end('{"ok":true}'));
  await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
  webPort = (web.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((done) => tcp.close(done));
  web.closeAllConnections();
  await new Promise((done) => web.close(done));
});

const resolvingTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('the helpdesk adapters\u2019 HTTP client', () => {
  it('does not connect to a host whose name resolves to loopback, and fails the call as unavailable', async () => {
    // `localhost` is a name, not an address literal: only the resolved addresses can refuse it.
    const http = new HelpdeskHttp({ timeoutMs: 2_000 });
    const failure = await http.send({ call: 'Vendor ReadTicket', method: 'GET', url: `https://localhost:${tcpPort}/api/v2/tickets/1` }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HelpdeskCallFailed);
    expect(failure).toMatchObject({ reason: 'unavailable', call: 'Vendor ReadTicket' });
    expect((failure as Error).cause).toBeInstanceOf(HelpdeskTargetRefused);
    expect(connections).toBe(0);
  });

  it('refuses a name with any address that is not public: private, link-local metadata, or loopback beside a public one', async () => {
    for (const addresses of [['10.0.0.7'], ['169.254.169.254'], ['93.184.216.34', '127.0.0.1'], ['fd00::1'], []]) {
      const fetch = pinnedFetch({ resolve: resolvingTo(...addresses) });
      await expect(fetch(`https://helpdesk.example.com:${tcpPort}/x`), addresses.join(',')).rejects.toBeInstanceOf(HelpdeskTargetRefused);
    }
    expect(connections).toBe(0);
  });

  it('connects to the address it checked, whatever the name would resolve to later', async () => {
    // helpdesk.invalid resolves nowhere in DNS: the call can only reach the server through the checked address.
    const fetch = pinnedFetch({ allowLoopback: true, resolve: resolvingTo('127.0.0.1') });
    const answer = await fetch(`http://helpdesk.invalid:${webPort}/api/ticket`, { method: 'GET', headers: { Accept: 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-seen-host')).toBe(`helpdesk.invalid:${webPort}`);
    expect(await answer.json()).toEqual({ ok: true });
  });
});
