/**
 * `tollgate serve` behind an egress proxy: the service's own calls — the identity provider's
 * JWKS and the notify webhook — go through `HTTP_PROXY` as upstream calls do, so a gateway
 * whose only way out is the proxy can still verify tokens and deliver spend notifications.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadService, startService, type RunningService } from '@tollgate/adapters-node';
import { billingRegistry, billingUpstream } from '../packages/core/src/gateway/__tests__/billing-upstream.js';

const servers: Server[] = [];
const services: RunningService[] = [];
const savedEnv = { http: process.env.HTTP_PROXY, https: process.env.HTTPS_PROXY, no: process.env.NO_PROXY };

afterAll(async () => {
  for (const s of services.splice(0)) await s.shutdown();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  for (const [name, value] of [
    ['HTTP_PROXY', savedEnv.http],
    ['HTTPS_PROXY', savedEnv.https],
    ['NO_PROXY', savedEnv.no],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An egress proxy (`CONNECT` tunnels, as undici's proxy agent opens them): it records the origins it carried. */
async function egressProxy(carried: Set<string>): Promise<string> {
  const proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client: import('node:net').Socket, head: Buffer) => {
    const target = req.url ?? '';
    carried.add(target);
    const cut = target.lastIndexOf(':');
    const out = netConnect(Number(target.slice(cut + 1)), target.slice(0, cut), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.byteLength > 0) out.write(head);
      out.pipe(client);
      client.pipe(out);
    });
    out.on('error', () => client.destroy());
    client.on('error', () => out.destroy());
  });
  return listen(proxy);
}

describe('tollgate serve behind an egress proxy', () => {
  it('fetches the JWKS and posts notify webhooks through HTTP_PROXY', async () => {
    const carried = new Set<string>();
    const proxyUrl = await egressProxy(carried);

    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const idp = await listen(createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }))));
    const hooks: string[] = [];
    const receiver = await listen(
      createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          hooks.push(body);
          res.writeHead(204).end();
        });
      }),
    );
    const upstream = billingUpstream();
    const upstreamUrl = await listen(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          void upstream
            .fetch(
              new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }),
            )
            .then(async (answer) => {
              res.writeHead(answer.status, Object.fromEntries(answer.headers));
              res.end(Buffer.from(await answer.arrayBuffer()));
            });
        });
      }),
    );
    const registry = billingRegistry() as ReturnType<typeof billingRegistry> & { providers: Record<string, { base_url: string }> };
    registry.providers.openai!.base_url = upstreamUrl;

    const dir = mkdtempSync(join(tmpdir(), 'tollgate-egress-'));
    writeFileSync(join(dir, 'registry.yaml'), stringify(registry));
    writeFileSync(
      join(dir, 'policy.yaml'),
      stringify({
        spend: {
          rules: [
            {
              id: 'people',
              matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '0.000001' }, actions: [{ type: 'notify', to: ['user'] }] }],
            },
          ],
        },
      }),
    );
    writeFileSync(
      join(dir, 'tollgate.yaml'),
      stringify({
        listen: { host: '127.0.0.1', port: 0 },
        registry: './registry.yaml',
        policy: './policy.yaml',
        identity: { jwt: [{ issuer: 'https://idp.example', audience: 'tollgate', jwks_url: `${idp}/jwks` }] },
        usage: 'none',
        notify: { webhook: `${receiver}/hook` },
        drain_timeout_s: 1,
      }),
    );
    process.env.UPSTREAM_KEY = 'sk';
    process.env.HTTP_PROXY = proxyUrl;
    delete process.env.HTTPS_PROXY;
    delete process.env.NO_PROXY;
    const loaded = await loadService(join(dir, 'tollgate.yaml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const service = await startService(loaded.service, { log: () => {} });
    services.push(service);
    delete process.env.HTTP_PROXY;

    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('https://idp.example')
      .setAudience('tollgate')
      .setSubject('ann')
      .setExpirationTime('5m')
      .sign(privateKey);
    // The first call's spend crosses the threshold; the second sees it crossed and notifies.
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${service.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100 }),
      });
      expect(answer.status).toBe(200);
      await answer.text();
    }
    await expect.poll(() => hooks.length, { timeout: 5000 }).toBe(1);
    expect(JSON.parse(hooks[0]!)).toMatchObject({ rule: 'people', per: 'user' });
    const origin = (url: string) => url.slice('http://'.length);
    expect([...carried].sort()).toEqual([origin(idp), origin(receiver), origin(upstreamUrl)].sort());
  });
});
