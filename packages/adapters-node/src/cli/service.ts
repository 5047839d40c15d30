/**
 * `tollgate serve` as a function: a node:http server around a gateway built from a loaded
 * service config, with `/healthz` (liveness) and `/readyz` (the store and usage sink can be
 * reached, and not draining), and a graceful shutdown that stops accepting, reports
 * not-ready, lets open streams finish (bounded by the drain timeout), then closes the gateway
 * (flushing usage) and the store. Operating it: docs/operating.md.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, GatewayConfigError, type Gateway, type UpstreamFetch } from '@tollgate/core';
import { openaiTokenizers } from '@tollgate/core/tokenizers';
import { handleNodeRequest } from '../http/listener.js';
import { createNodeFetch, createNodeUpstream } from '../http/upstream.js';
import { buildParts, upstreamOptions, type PartOverrides } from './build.js';
import { identitySummary, surrogateSecret } from './config.js';
import { formatViolations, loadService, type LoadedService, type Violation } from './load.js';
import { Readiness, type ReadinessReport } from './readiness.js';
import { createAccessLog, type AccessLog, type Answered } from '../telemetry/access-log.js';
import { startTelemetry, type ServiceTelemetry } from '../telemetry/sdk.js';
import { createWebhookNotifier, type WebhookNotifier } from '../notify/webhook.js';

export interface StartServiceOptions {
  /** Where start-up and shutdown lines go (default: stderr). */
  log?: (line: string) => void;
  /** Override `listen` (tests, `PORT`). */
  port?: number;
  host?: string;
  /** The upstream transport (default: `createNodeUpstream` with the config's `upstream:` bounds); closed at shutdown. */
  upstream?: UpstreamFetch & { close(): unknown };
  /** The state store and usage sink, when made elsewhere (a worker's, by the primary of `serve --workers`); closed at shutdown. */
  parts?: PartOverrides;
}

export interface RunningService {
  /** `http://host:port` */
  url: string;
  server: Server;
  gateway: Gateway;
  /** True until shutdown starts. */
  readonly ready: boolean;
  /** Check now whether the store and the usage sink can be reached (what `/readyz` answers). */
  checkReady(): Promise<ReadinessReport>;
  /** Requests in flight (health checks excluded). */
  readonly inFlight: number;
  /** `http://host:port/metrics` when `telemetry.prometheus` is configured and listening, else null. */
  readonly metricsUrl: string | null;
  /** Stop accepting, drain (bounded by `drain_timeout_s`), close the gateway and the store. Idempotent. */
  shutdown(): Promise<void>;
  /**
   * Read the config, registry and policy files again and swap in the registry, the policy and
   * the identity section (`tollgate serve` does this on SIGHUP). On any violation nothing
   * changes: the last good revision keeps serving and the result lists what is wrong. Other
   * config keys (listen, store, usage, secrets, limits) take a restart.
   */
  reload(): Promise<ReloadResult>;
}

export type ReloadResult =
  | { ok: true; registryRevision: string; policyRevision: string | null }
  | { ok: false; errors: Violation[]; registryRevision: string; policyRevision: string | null };

const HEALTH = new Set(['/healthz', '/readyz']);

export async function startService(service: LoadedService, options: StartServiceOptions = {}): Promise<RunningService> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const { config } = service;
  // Checked before anything is opened: a named secret that is missing stops the start.
  const dlpKey = surrogateSecret(config);
  const parts = await buildParts(config, service.dir, log, options.parts);
  // Telemetry first: the gateway's instruments are made from its providers. Absent: off, at no cost.
  let telemetry: ServiceTelemetry | null = null;
  try {
    telemetry = config.telemetry === undefined ? null : await startTelemetry(config.telemetry, log);
  } catch (error) {
    await parts.usage?.close().catch(() => {});
    await parts.store.close().catch(() => {});
    throw error;
  }
  const accessLog: AccessLog | null =
    config.log.access === 'stdout'
      ? createAccessLog(options.parts?.stdout ?? process.stdout, (error) =>
          log(`tollgate: access log: ${error instanceof Error ? error.message : String(error)}`),
        )
      : null;
  // Say at once what cannot be reached, and what that means; the monitor reports changes.
  const readiness = new Readiness(parts.dependencies, log);
  const initial = await readiness.check();
  const upstreamFetch = options.upstream ?? createNodeUpstream(upstreamOptions(config.upstream, service.upstreamCa));
  // The service's own calls (JWKS keys, the notify webhook) leave through the proxies of the
  // environment as upstream calls do; `upstream.ca_file` is for upstreams only (it replaces
  // Node's CAs), so it is not applied to them.
  const outbound = createNodeFetch({ client: 'undici' });
  // Spend notifications: POSTed to the webhook in the background, or (without one) logged once
  // per crossing so a notify action is never silently dropped.
  const notifier: WebhookNotifier | null =
    config.notify === undefined
      ? null
      : createWebhookNotifier({
          url: config.notify.webhook,
          fetch: outbound,
          onError: (error) => log(`tollgate: notify webhook: ${error instanceof Error ? error.message : String(error)}`),
        });
  const notify =
    notifier !== null
      ? (...args: Parameters<WebhookNotifier['notify']>) => notifier.notify(...args)
      : (n: { ruleId: string; pool: string; windowKey: string }) =>
          log(`tollgate: spend notification (no notify.webhook configured): rule ${n.ruleId}, pool ${n.pool}, window ${n.windowKey}`);
  let gateway: Gateway;
  try {
    gateway = createGateway({
      notify,
      telemetry: telemetry === null ? false : telemetry.options,
      fetch: upstreamFetch,
      // Local token counts for models that declare an OpenAI encoding (tables loaded on first use).
      tokenizers: openaiTokenizers,
      registry: service.registry,
      policy: service.policy,
      identity: config.identity ?? {},
      jwksFetch: outbound,
      store: parts.store,
      ...(parts.usage === undefined ? {} : { usage: parts.usage }),
      maxRequestBytes: config.max_request_bytes,
      ...(dlpKey === undefined ? {} : { dlp: { key: dlpKey } }),
      ...(typeof config.store === 'object' && config.store.reservation_ttl_s !== undefined ? { reservationTtlMs: config.store.reservation_ttl_s * 1000 } : {}),
    });
  } catch (error) {
    outbound.close();
    await parts.usage?.close().catch(() => {});
    await parts.store.close().catch(() => {});
    await telemetry?.shutdown(1000);
    throw error;
  }

  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (HEALTH.has(path) && (req.method === 'GET' || req.method === 'HEAD')) {
      const send = (answer: { status: number; body: string }) => {
        res.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...(draining ? { connection: 'close' } : {}) });
        res.end(req.method === 'HEAD' ? undefined : answer.body);
      };
      // Liveness: the process answers. Readiness: not draining, and every backend reachable.
      if (path === '/healthz') send(json(200, { status: 'ok' }));
      else if (draining) send(json(503, { status: 'draining' }));
      else {
        void readiness
          .check()
          .then((report) =>
            send(report.ready ? json(200, { status: 'ready', checks: report.checks }) : json(503, { status: 'not_ready', checks: report.checks })),
          );
      }
      return;
    }
    // Draining: this replica takes no new work; clients retry elsewhere (503 is retryable for every SDK).
    if (draining) {
      accessLog?.track(req, res);
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close', 'retry-after': '1' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'unavailable', code: 'unavailable', message: 'tollgate is shutting down; retry the request.' } }));
      return;
    }
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    let answered: Answered = null;
    const handled = handleNodeRequest(gateway, req, res, {
      maxRequestBytes: config.max_request_bytes,
      // A client that stops reading is cut after as long as an upstream may stay silent.
      stallTimeoutMs: config.upstream.idle_timeout_s * 1000,
      onError: (error) => log(`tollgate: request failed: ${error instanceof Error ? error.message : String(error)}`),
      ...(accessLog === null ? {} : { onAnswer: (answer: NonNullable<Answered>) => void (answered = answer) }),
    });
    accessLog?.track(
      req,
      res,
      handled.then(() => answered),
    );
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  const host = options.host ?? config.listen.host;
  const port = options.port ?? config.listen.port;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    outbound.close();
    await gateway.close({ drainMs: 0 });
    await parts.store.close().catch(() => {});
    await telemetry?.shutdown(1000);
    await accessLog?.close();
    throw error;
  }
  readiness.monitor(5000);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  log(
    `tollgate: listening on ${url} — ${Object.keys(service.registry.models).length} models, ` +
      `store ${parts.describe.store}, usage ${parts.describe.usage}, ` +
      `telemetry ${telemetry === null ? 'off' : telemetry.describe}, access log ${accessLog === null ? 'off' : 'stdout'}, ` +
      `notifications ${notifier === null ? 'to the log' : 'to the webhook'}, ` +
      `registry ${service.registry.revision.slice(0, 19)}…` +
      (initial.ready
        ? ''
        : ` — not ready: ${Object.entries(initial.checks)
            .filter(([, c]) => c?.ok === false)
            .map(([name]) => name)
            .join(', ')} cannot be reached`),
  );

  let stopping: Promise<void> | null = null;
  async function shutdown(): Promise<void> {
    const drainMs = config.drain_timeout_s * 1000;
    const drainUntil = Date.now() + drainMs;
    // Not ready from now on; the listener stays open so probes see 503, new requests are refused,
    // and every answer closes its connection (idle ones are not cut: a client may be reusing one).
    draining = true;
    readiness.stop();
    log(`tollgate: draining — not ready, ${inFlight} request(s) open, waiting up to ${config.drain_timeout_s} s`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => {
        if (inFlight === 0) resolve(true);
        else idle = () => resolve(true);
      }),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), drainMs);
      }),
    ]);
    clearTimeout(timer);
    if (!drained) log(`tollgate: drain timeout — cutting ${inFlight} open request(s)`);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    // Streams cut above settle as cancelled within a chunk; settles the store failed are retried
    // for what is left of the drain time (2 s at least); then usage is flushed and the store closed.
    await gateway.close({ drainMs: Math.max(2000, drainUntil - Date.now()) });
    await notifier?.close(Math.max(1000, drainUntil - Date.now()));
    await upstreamFetch.close();
    outbound.close();
    await parts.store.close().catch(() => {});
    // Spans and metrics still pending go out now (bounded), then the metrics listener closes.
    await telemetry?.shutdown();
    await accessLog?.close();
    log(stoppedLine(gateway, telemetry, accessLog, notifier));
  }

  async function reload(): Promise<ReloadResult> {
    const kept = () => ({ registryRevision: gateway.registry.revision, policyRevision: gateway.policyRevision });
    const loaded = await loadService(service.file);
    if (!loaded.ok) {
      log(`tollgate: reload refused — keeping registry ${kept().registryRevision.slice(0, 19)}…:\n${formatViolations(loaded.errors)}`);
      return { ok: false, errors: loaded.errors, ...kept() };
    }
    try {
      const identity = loaded.service.config.identity ?? {};
      const result = gateway.reload({ registry: loaded.service.registry, policy: loaded.service.policy ?? null, identity });
      log(
        `tollgate: reloaded — ${Object.keys(loaded.service.registry.models).length} models, ${identitySummary(loaded.service.config.identity)}, registry ${result.registryRevision.slice(0, 19)}…, policy ${result.policyRevision === null ? 'none' : `${result.policyRevision.slice(0, 19)}…`}`,
      );
      return { ok: true, ...result };
    } catch (error) {
      if (!(error instanceof GatewayConfigError)) throw error;
      const file =
        error.source === 'policy' && loaded.service.policyFile !== null
          ? loaded.service.policyFile
          : error.source === 'identity'
            ? service.file
            : loaded.service.registryFile;
      const errors = error.errors.map((e) => ({ file, path: e.path, message: e.message }));
      log(`tollgate: reload refused — keeping registry ${kept().registryRevision.slice(0, 19)}…:\n${formatViolations(errors)}`);
      return { ok: false, errors, ...kept() };
    }
  }

  return {
    url,
    server,
    gateway,
    metricsUrl: telemetry?.metricsUrl ?? null,
    reload,
    get ready() {
      return !draining;
    },
    checkReady: () => readiness.check(),
    get inFlight() {
      return inFlight;
    },
    shutdown() {
      stopping ??= shutdown();
      return stopping;
    },
  };
}

/**
 * The shutdown line: what the sink itself did with the usage records (not only what was handed
 * to it), and what telemetry and the access log lost.
 */
function stoppedLine(gateway: Gateway, telemetry: ServiceTelemetry | null, accessLog: AccessLog | null, notifier: WebhookNotifier | null): string {
  const stats = gateway.stats();
  const u = stats.usage;
  const lost = u.dropped + u.failed;
  let line =
    `tollgate: stopped — ${stats.requests} requests; usage records: ${u.handed} handed, ${u.written} written, ` +
    `${u.queued} still queued, ${u.dropped} dropped, ${u.failed} failed (${lost + u.queued} lost)`;
  if (stats.settleFailures > 0) line += `; ${stats.settleFailures} settlements the store never took (their holds expire after the reservation TTL)`;
  if (telemetry !== null) {
    const t = telemetry.stats();
    // A span is lost when it never reached the collector: a failed export, the batch queue full,
    // or still waiting when the bounded shutdown gave up.
    const spansLost = Math.max(t.spans.failed, t.spans.ended - t.spans.exported);
    line += `; telemetry: ${t.spans.exported} spans exported, ${spansLost} lost; ${t.metrics.exported} metric points exported, ${t.metrics.failed} lost`;
  }
  if (accessLog !== null) {
    const a = accessLog.stats();
    if (a.dropped + a.failed > 0) line += `; access log: ${a.dropped + a.failed} lines lost`;
  }
  if (notifier !== null) {
    const n = notifier.stats();
    line += `; notifications: ${n.delivered} delivered, ${n.failed + n.dropped} lost`;
  }
  return line;
}
