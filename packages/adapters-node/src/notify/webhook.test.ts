import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal, SpendNotification } from '@tollgate/policy';
import { createWebhookNotifier } from './webhook.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

/** A receiver on loopback: answers each POST with the next status of `statuses` (then 200). */
async function receiver(statuses: number[] = []) {
  const got: Array<{ headers: IncomingMessage['headers']; body: Record<string, unknown> }> = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

const notification: SpendNotification = {
  key: 'notify:payments-frontier#1:bu:payments:2030-01',
  ruleId: 'payments-frontier',
  to: ['finops'],
  principalId: 'ann',
  per: 'bu',
  pool: 'payments',
  poolKey: 'bu:payments',
  scope: 'frontier',
  window: 'monthly',
  windowKey: '2030-01',
  thresholdMicros: 4_000_000_000,
  usedMicros: 4_012_500_000,
  expiresAt: 0,
  shadow: false,
};
const ann: Principal = { kind: 'user', id: 'ann', team: 'search', bu: 'payments' };
const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('webhook notifier', () => {
  it('POSTs the notification as JSON, with the crossing as idempotency key, and does not make the caller wait', async () => {
    const hook = await receiver();
    const notifier = createWebhookNotifier({ url: hook.url, now: () => Date.UTC(2030, 0, 15, 10) });
    notifier.notify(notification, ann);
    expect(notifier.stats().pending).toBe(1); // queued; sent in the background, on a later turn
    expect(hook.got).toHaveLength(0);
    await until(() => notifier.stats().delivered === 1);
    expect(hook.got).toHaveLength(1);
    expect(hook.got[0]!.headers['content-type']).toBe('application/json');
    expect(hook.got[0]!.headers['idempotency-key']).toBe(notification.key);
    expect(hook.got[0]!.body).toEqual({
      rule: 'payments-frontier',
      per: 'bu',
      pool: 'payments',
      scope: 'frontier',
      window: 'monthly',
      window_key: '2030-01',
      threshold_usd: '4000',
      spent_usd: '4012.5',
      to: ['finops'],
      principal: { kind: 'user', id: 'ann', issuer: null, team: 'search', bu: 'payments', application: null },
      shadow: false,
      ts: '2030-01-15T10:00:00.000Z',
    });
    await notifier.close();
    expect(notifier.stats()).toEqual({ delivered: 1, failed: 0, dropped: 0, pending: 0 });
  });

  it('retries with backoff while the receiver fails (5xx, 429, refused connections), and delivers once it answers', async () => {
    const hook = await receiver([503, 429, 500]);
    const notifier = createWebhookNotifier({ url: hook.url, minDelayMs: 20, maxDelayMs: 40 });
    notifier.notify(notification, ann);
    await until(() => notifier.stats().delivered === 1);
    expect(hook.got).toHaveLength(4);
    expect(new Set(hook.got.map((g) => g.headers['idempotency-key']))).toEqual(new Set([notification.key]));

    const errors: unknown[] = [];
    const down = createWebhookNotifier({ url: 'http://127.0.0.1:9/hook', minDelayMs: 10, maxDelayMs: 20, maxRetryMs: 150, onError: (e) => errors.push(e) });
    down.notify(notification, ann);
    await until(() => down.stats().failed === 1);
    expect(down.stats()).toMatchObject({ delivered: 0, failed: 1, pending: 0 });
    expect(errors).toHaveLength(1);
    await Promise.all([notifier.close(), down.close()]);
  });

  it('gives up at once on a 4xx the receiver means (no retry storm)', async () => {
    const hook = await receiver([400]);
    const notifier = createWebhookNotifier({ url: hook.url, minDelayMs: 10 });
    notifier.notify(notification, ann);
    await until(() => notifier.stats().failed === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(hook.got).toHaveLength(1);
    await notifier.close();
  });

  it('bounds what waits: past maxPending, and after close, notifications are dropped and counted', async () => {
    const hook = await receiver(Array.from({ length: 100 }, () => 503));
    const notifier = createWebhookNotifier({ url: hook.url, maxPending: 2, minDelayMs: 1000 });
    for (let i = 0; i < 5; i++) notifier.notify({ ...notification, key: `k${i}` }, ann);
    expect(notifier.stats()).toMatchObject({ pending: 2, dropped: 3 });
    await notifier.close(50); // drain time up: the two retrying ones are given up
    expect(notifier.stats()).toEqual({ delivered: 0, failed: 2, dropped: 3, pending: 0 });
    notifier.notify(notification, ann);
    expect(notifier.stats().dropped).toBe(4);
  });
});
