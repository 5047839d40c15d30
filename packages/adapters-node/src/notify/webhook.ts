/**
 * Spend notifications over a webhook (`notify: { webhook: URL }` of `tollgate serve`). The
 * gateway hands over a notification once per crossing per window — once per pool, across
 * replicas: the one-shot marker is set in the shared store, and only the replica that set it
 * is handed the notification. This sends it as one JSON POST, in the background (traffic never
 * waits for it), retried with exponential backoff (p-retry) while the receiver is down or
 * answers 5xx/429. The queue is bounded; what it cannot take, and what never got through, is
 * counted.
 */
import pRetry, { AbortError } from 'p-retry';
import { formatMicros, type Principal, type SpendNotification } from '@tollgate/policy';

export interface WebhookNotifierOptions {
  /** Where notifications are POSTed. */
  url: string;
  /** The fetch to POST with (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Deliveries waiting or in flight at most; past it a notification is dropped (counted). Default 1,000. */
  maxPending?: number;
  /** First retry after this long, doubling (with jitter) up to `maxDelayMs`. Defaults 500 ms and 30 s. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** How long one notification is retried before it counts as failed. Default 10 minutes. */
  maxRetryMs?: number;
  /** Each POST is given up after this long (and retried). Default 10 s. */
  timeoutMs?: number;
  /** The clock of `ts` (default `Date.now`). */
  now?: () => number;
  /** Told of each notification that could not be delivered, with why. */
  onError?: (error: unknown) => void;
}

/** The JSON body of one notification POST. */
export interface WebhookPayload {
  /** The spend rule, whose pool (`per`, `pool`), its window and threshold, and what the pool has spent. */
  rule: string;
  per: string;
  pool: string;
  scope: string;
  window: string;
  window_key: string;
  threshold_usd: string;
  spent_usd: string;
  /** The recipients the rule names (`to`), as written. */
  to: readonly string[];
  /** The caller whose request found the threshold crossed. */
  principal: { kind: string; id: string; issuer: string | null; team: string | null; bu: string | null; application: string | null };
  /** From a shadow rule or shadow mode: for reporting, nobody is held back. */
  shadow: boolean;
  /** When the crossing was seen, ISO-8601. */
  ts: string;
}

export interface WebhookStats {
  delivered: number;
  /** Given up after `maxRetryMs`, or refused by the receiver with a 4xx other than 429. */
  failed: number;
  /** Not queued: `maxPending` deliveries were already waiting, or the notifier was closed. */
  dropped: number;
  /** Waiting or in flight now. */
  pending: number;
}

export interface WebhookNotifier {
  /** For `createGateway({ notify })`: queues the POST and returns at once; never throws. */
  notify(notification: SpendNotification, principal: Principal): void;
  stats(): WebhookStats;
  /** Stop taking notifications; wait up to `drainMs` for those under way, then give them up (counted as failed). */
  close(drainMs?: number): Promise<void>;
}

export function webhookPayload(n: SpendNotification, principal: Principal, ts: number): WebhookPayload {
  return {
    rule: n.ruleId,
    per: n.per,
    pool: n.pool,
    scope: n.scope,
    window: n.window,
    window_key: n.windowKey,
    threshold_usd: formatMicros(n.thresholdMicros),
    spent_usd: formatMicros(n.usedMicros),
    to: n.to,
    principal: {
      kind: principal.kind,
      id: principal.id,
      issuer: principal.issuer ?? null,
      team: principal.team ?? null,
      bu: principal.bu ?? null,
      application: principal.application ?? null,
    },
    shadow: n.shadow,
    ts: new Date(ts).toISOString(),
  };
}

/** A receiver's answer that retrying may fix: a server error, 408 or 429. */
const retryable = (status: number): boolean => status >= 500 || status === 408 || status === 429;

export function createWebhookNotifier(options: WebhookNotifierOptions): WebhookNotifier {
  const send = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const maxPending = options.maxPending ?? 1_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  const counts = { delivered: 0, failed: 0, dropped: 0 };
  const pending = new Set<Promise<void>>();
  const stop = new AbortController();
  let closed = false;

  const post = async (body: string, key: string, signal: AbortSignal): Promise<void> => {
    const res = await send(options.url, {
      method: 'POST',
      // The marker key names the crossing: a receiver can tell a retry from a new crossing by it.
      headers: { 'content-type': 'application/json', 'idempotency-key': key, 'user-agent': 'tollgate-notify' },
      body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    await res.body?.cancel().catch(() => {});
    if (res.ok) return;
    const error = new Error(`webhook answered ${res.status}`);
    if (!retryable(res.status)) throw new AbortError(error);
    throw error;
  };

  const deliver = async (body: string, key: string): Promise<void> => {
    // Off the request's path: the first POST starts on a later turn of the event loop.
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    try {
      await pRetry(() => post(body, key, stop.signal), {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: options.minDelayMs ?? 500,
        maxTimeout: options.maxDelayMs ?? 30_000,
        factor: 2,
        randomize: true,
        maxRetryTime: options.maxRetryMs ?? 10 * 60_000,
        signal: stop.signal,
        unref: true,
      });
      counts.delivered++;
    } catch (error) {
      counts.failed++;
      options.onError?.(error);
    }
  };

  return {
    notify(notification, principal) {
      try {
        if (closed || pending.size >= maxPending) {
          counts.dropped++;
          return;
        }
        const body = JSON.stringify(webhookPayload(notification, principal, now()));
        const done = deliver(body, notification.key);
        pending.add(done);
        void done.finally(() => pending.delete(done));
      } catch (error) {
        counts.dropped++;
        options.onError?.(error);
      }
    },
    stats() {
      return { ...counts, pending: pending.size };
    },
    async close(drainMs = 5_000) {
      closed = true;
      if (pending.size > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([Promise.all([...pending]), new Promise<void>((r) => (timer = setTimeout(r, drainMs)))]);
        clearTimeout(timer);
      }
      stop.abort();
      await Promise.all([...pending]);
    },
  };
}
