import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookHttp, WebhookTargetRefused, type Resolver } from '../../../lambdas/adapters/webhook-http.ts';
import { REFUSED_WEBHOOK_URLS } from '../../support/refused-webhook-urls.ts';

/** A receiver on loopback; each test sets how it answers. */
let server: Server;
let port: number;
let received: Array<{ req: IncomingMessage; body: string }> = [];
let answer: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(200).end();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ req, body });
      answer(res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});
beforeEach(() => {
  received = [];
  answer = (res) => res.writeHead(200).end();
});

const request = (url: string) => ({ url, headers: { 'Content-Type': 'application/json', 'webhook-id': 'msg' }, body: '{"id":"evt_1"}', timeoutMs: 2_000 });
const resolver = (answers: Record<string, string[]>) => {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    return (answers[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { asked, resolve };
};

describe('WebhookHttp', () => {
  it('refuses a host name that resolves to a loopback address when loopback is not allowed, before connecting', async () => {
    const { resolve } = resolver({ 'hooks.example.com': ['127.0.0.1'] });
    const http = new WebhookHttp({ resolve });
    await expect(http.post(request(`https://hooks.example.com:${port}/hook`))).rejects.toBeInstanceOf(WebhookTargetRefused);
    expect(received).toEqual([]);
  });

  it('refuses when ANY resolved address is not public (rebinding with a mixed answer)', async () => {
    const { resolve } = resolver({ 'hooks.example.com': ['93.184.216.34', '10.0.0.7'] });
    await expect(new WebhookHttp({ resolve }).post(request('https://hooks.example.com/hook'))).rejects.toThrow(/not public/);
    const v6 = resolver({ 'hooks.example.com': ['::ffff:192.168.1.1'] });
    await expect(new WebhookHttp({ resolve: v6.resolve }).post(request('https://hooks.example.com/hook'))).rejects.toThrow(/not public/);
  });

  // A subscription stored before a rule was tightened, or written around the API, is checked again.
  it.each(REFUSED_WEBHOOK_URLS)('refuses at delivery %s, before any lookup or connection', async (url) => {
    const { asked, resolve } = resolver({});
    await expect(new WebhookHttp({ resolve }).post(request(url))).rejects.toBeInstanceOf(WebhookTargetRefused);
    expect(asked).toEqual([]);
    expect(received).toEqual([]);
  });

  // Every address literal of the list (the URL parser gives numeric forms as dotted quads).
  const refusedAddresses = [
    ...new Set(
      REFUSED_WEBHOOK_URLS.map((url) => (URL.parse(url)?.hostname ?? '').replace(/^\[|\]$/g, '')).filter(
        (host) => /^(\d+\.){3}\d+$/.test(host) || host.includes(':'),
      ),
    ),
  ];
  it.each(refusedAddresses)('refuses a public-looking name that resolves to %s', async (address) => {
    const { resolve } = resolver({ 'hooks.example.com': [address] });
    await expect(new WebhookHttp({ resolve }).post(request('https://hooks.example.com/hook'))).rejects.toBeInstanceOf(WebhookTargetRefused);
    expect(received).toEqual([]);
  });

  it('refuses plain http and private literals even with loopback allowed', async () => {
    const http = new WebhookHttp({ allowLoopback: true, resolve: resolver({}).resolve });
    await expect(http.post(request('http://hooks.example.com/hook'))).rejects.toBeInstanceOf(WebhookTargetRefused);
    await expect(http.post(request('https://10.1.2.3/hook'))).rejects.toBeInstanceOf(WebhookTargetRefused);
  });

  it('connects to the address it checked, resolving the name once', async () => {
    const { asked, resolve } = resolver({ localhost: ['127.0.0.1'] });
    const http = new WebhookHttp({ allowLoopback: true, resolve });
    expect(await http.post(request(`http://localhost:${port}/hook`))).toEqual({ status: 200 });
    expect(asked).toEqual(['localhost']);
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe('{"id":"evt_1"}');
    expect(received[0]!.req.headers['webhook-id']).toBe('msg');
    expect(received[0]!.req.method).toBe('POST');
  });

  it('does not follow a redirect: a 302 to a private address is just a 302', async () => {
    answer = (res) => res.writeHead(302, { Location: 'http://10.0.0.1/internal' }).end();
    const http = new WebhookHttp({ allowLoopback: true });
    expect(await http.post(request(`http://127.0.0.1:${port}/hook`))).toEqual({ status: 302 });
    expect(received).toHaveLength(1);
  });

  it('counts the name lookup in the timeout', async () => {
    const slowResolve: Resolver = () => new Promise((done) => setTimeout(() => done([{ address: '93.184.216.34', family: 4 }]), 1_000));
    const started = Date.now();
    await expect(new WebhookHttp({ resolve: slowResolve }).post({ ...request('https://hooks.example.com/hook'), timeoutMs: 200 })).rejects.toThrow(/timed out/);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('takes the status line as the answer: a 2xx whose body trickles in is not a timeout', async () => {
    answer = (res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('working');
      setTimeout(() => res.end('...done'), 600);
    };
    const http = new WebhookHttp({ allowLoopback: true });
    expect(await http.post({ ...request(`http://127.0.0.1:${port}/hook`), timeoutMs: 300 })).toEqual({ status: 200 });
  });

  it('gives up after the timeout', async () => {
    answer = () => undefined; // never answers
    const http = new WebhookHttp({ allowLoopback: true });
    await expect(http.post({ ...request(`http://127.0.0.1:${port}/hook`), timeoutMs: 200 })).rejects.toThrow(/timed out/);
  });
});
