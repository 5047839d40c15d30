import { GatewayError } from '@tollgate/codecs/base';
import { parsePolicy, type Policy } from '@tollgate/policy';
import { createIdentityResolver, type IdentityResolver } from '../identity/index.js';
import { isRegistry, loadRegistry, type Registry } from '../registry/index.js';
import { createMemoryStore } from '../store/index.js';
import { DEFAULT_MAX_REQUEST_BYTES } from './body.js';
import { Breakers } from './breaker.js';
import { HoldKeeper } from './holds.js';
import { DEFAULT_EARLY_CHECK_BYTES } from './early-check.js';
import { GatewayConfigError } from './config-error.js';
import { RequestContext } from './context.js';
import type { GatewayReply, GatewayRequest, ReplyOptions, UpstreamFetch } from './request.js';
import { tokenAdjustments, writeRecord, type SettleTally } from './finalize.js';
import { assertCodecsCover, codecTableFrom } from './codecs.js';
import { assertSignersCover, signerTableFrom } from './signers.js';
import { assertKindsServed } from './kind-routes.js';
import { assertTokenizersCover, tokenCounterTableFrom } from './token-counters.js';
import type { ContentOptions, DlpOptions, Gateway, GatewayOptions, GatewayStats, MinimalGatewayOptions } from './options.js';
import { errorReply, replyToResponse } from './render.js';
import { SecretCache, secretResolver } from './secrets.js';
import { toUsageSink, type SinkStats } from './usage-record.js';
import { walk } from './walk.js';
import type { WalkDeps } from './walk-deps.js';
import { policyRevisionOf } from '../replay/replay.js';
import type { GatewayTelemetry, TelemetryOption } from '../telemetry/options.js';
import { RequestTiming } from './timing.js';
import type { UsageStats } from './options.js';
import { SlotSet } from '../util/slot-set.js';

/** Each gateway's `reply` → the `handle` made with it. */
const PAIRS = new WeakMap<Gateway['reply'], Gateway['handle']>();
/** Each gateway's `handle` → what its telemetry left for after the answers. */
const PENDING = new WeakMap<Gateway['handle'], () => Promise<void> | null>();

/**
 * For adapters on runtimes that stop a request's work once its answer is sent unless told
 * otherwise (a Worker's `ctx.waitUntil`): a promise that resolves once the spans and metrics the
 * gateway's requests left for after their answers have been handed to the OpenTelemetry SDK, or
 * null when nothing is pending (no SDK, or nothing queued).
 */
export function pendingTelemetry(gateway: Pick<Gateway, 'handle'>): Promise<void> | null {
  return PENDING.get(gateway.handle)?.() ?? null;
}

/**
 * The `reply` a server adapter may call instead of `handle`: only when it was made together
 * with that very `handle`. A gateway whose `handle` was wrapped (`{ ...gateway, handle: logged }`)
 * gets no `reply`, so the wrapper is never bypassed.
 */
export function pairedReply(gateway: Pick<Gateway, 'handle'> & Partial<Pick<Gateway, 'reply'>>): Gateway['reply'] | undefined {
  const reply = gateway.reply;
  return reply !== undefined && PAIRS.get(reply) === gateway.handle ? reply : undefined;
}

/** True when a policy asks for DLP: actions, custom patterns or response scanning. */
function usesDlp(policy: Policy): boolean {
  const d = policy.dlp;
  if (d === undefined) return false;
  return Object.keys(d.default ?? {}).length > 0 || (d.use_cases ?? []).length > 0 || (d.custom ?? []).length > 0 || d.scan_responses === true;
}

/** Load and validate the registry, or refuse to start listing every violation. */
function registryFrom(raw: unknown): Registry {
  if (isRegistry(raw)) return raw;
  const loaded = loadRegistry(raw);
  if (!loaded.ok) throw new GatewayConfigError('registry', loaded.errors);
  return loaded.registry;
}

/** Where the policy asks for a spend notification (`notify` actions, overrides' included). */
function notifyPaths(policy: Policy): string[] {
  const paths: string[] = [];
  (policy.spend?.rules ?? []).forEach((rule, r) =>
    rule.matches.forEach((entry, e) =>
      entry.actions.forEach((a, k) => {
        if (a.type === 'notify') paths.push(`spend.rules[${r}].matches[${e}].actions[${k}]`);
      }),
    ),
  );
  for (const [bu, unit] of Object.entries(policy.business_units ?? {}))
    (unit.spend_overrides ?? []).forEach((o, i) =>
      (o.actions ?? []).forEach((a, k) => {
        if (a.type === 'notify') paths.push(`business_units.${bu}.spend_overrides[${i}].actions[${k}]`);
      }),
    );
  return paths;
}

/** The host's own refusal of a policy it cannot enforce (`checkPolicy`), as a config error. */
function assertPolicyAccepted(options: GatewayOptions, policy: Policy | null): void {
  const issues = options.checkPolicy?.(policy) ?? [];
  if (issues.length > 0) throw new GatewayConfigError('options', [...issues]);
}

function policyFrom(
  raw: unknown,
  registry: Registry,
  dlp: DlpOptions = {},
  content: ContentOptions = {},
  notifies = true,
): { policy: Policy | null; revision: string | null } {
  if (raw === undefined || raw === null) return { policy: null, revision: null };
  const recognizers = dlp.recognizers ?? [];
  const validation = dlp.engine?.validation(recognizers) ?? { entities: recognizers.flatMap((r) => r.entities) };
  const parsed = parsePolicy(raw, { registry, dlp: validation });
  if (!parsed.ok)
    throw new GatewayConfigError(
      'policy',
      parsed.errors.map((e) => ({ path: e.path, message: e.message })),
    );
  if (dlp.engine === undefined && usesDlp(parsed.policy)) {
    throw new GatewayConfigError('policy', [
      {
        path: 'dlp',
        message:
          "the policy asks for DLP but this gateway has no DLP engine: pass dlp: { engine: dlpEngine } (import { dlpEngine } from '@tollgate/core/dlp'), or use createGateway from '@tollgate/core'",
      },
    ]);
  }
  if (content.engine === undefined) {
    const used = [
      ...((parsed.policy.tools?.allow_lists ?? []).length > 0 ? ['tools.allow_lists'] : []),
      ...((parsed.policy.prompts ?? []).length > 0 ? ['prompts'] : []),
    ];
    if (used.length > 0) {
      throw new GatewayConfigError(
        'policy',
        used.map((path) => ({
          path,
          message: `the policy has ${path} but this gateway has no content engine: pass content: { engine: contentEngine } (import { contentEngine } from '@tollgate/core/content'), or use createGateway from '@tollgate/core'`,
        })),
      );
    }
  }
  if (!notifies) {
    const paths = notifyPaths(parsed.policy);
    if (paths.length > 0) {
      throw new GatewayConfigError(
        'policy',
        paths.map((path) => ({
          path,
          message:
            'a notify action needs somewhere to go: pass createGateway({ notify: (notification, principal) => … }) (tollgate serve delivers to notify.webhook, or logs); without one it would be dropped',
        })),
      );
    }
  }
  return { policy: parsed.policy, revision: policyRevisionOf(raw) };
}

function identityFrom(options: Pick<GatewayOptions, 'identity' | 'jwksFetch' | 'jwt'>): IdentityResolver {
  try {
    return createIdentityResolver(options.identity, {
      ...(options.jwksFetch === undefined ? {} : { fetch: options.jwksFetch }),
      ...(options.jwt?.engine === undefined ? {} : { jwtEngine: options.jwt.engine }),
    });
  } catch (error) {
    throw new GatewayConfigError('identity', [{ path: 'identity', message: error instanceof Error ? error.message : String(error) }]);
  }
}

/**
 * The gateway's telemetry: made by the engine the options name. Telemetry options without an
 * engine are refused (`createGateway` of `@tollgate/core` always passes one).
 */
function telemetryFrom(option: TelemetryOption | undefined): GatewayTelemetry | null {
  if (option === undefined || option === false) return null;
  if (option.engine === undefined) {
    throw new GatewayConfigError('options', [
      {
        path: 'telemetry',
        message:
          "telemetry options need an engine here: pass telemetry: { engine: openTelemetry } (import { openTelemetry } from '@tollgate/core/telemetry'), or use createGateway from '@tollgate/core'",
      },
    ]);
  }
  return option.engine(option);
}

/**
 * Create a gateway: the governed pipeline from `Request` to `Response`, speaking the wire
 * formats of `options.codecs` (this is `createGateway` of `@tollgate/core/minimal`; the one of
 * `@tollgate/core` passes every codec by default). Refuses to start (throws `GatewayConfigError`
 * listing every violation) on an invalid registry, policy or identity configuration, and when
 * an entry route or enabled deployment has a format with no codec in the list.
 */
export function createGateway(options: MinimalGatewayOptions): Gateway {
  const registry = registryFrom(options.registry);
  const codecs = codecTableFrom(options.codecs);
  assertCodecsCover(registry, codecs);
  const signers = signerTableFrom(options.signers);
  assertSignersCover(registry, signers);
  const tokenizers = tokenCounterTableFrom(options.tokenizers);
  assertTokenizersCover(registry, tokenizers);
  const kinds = options.kinds ?? null;
  assertKindsServed(registry, kinds);
  const first = policyFrom(options.policy, registry, options.dlp, options.content, options.notify !== undefined);
  assertPolicyAccepted(options, first.policy);
  let policyInput: unknown = options.policy;
  let policyRevision = first.revision;
  const identity = identityFrom(options);
  // Null without an engine, when no OpenTelemetry SDK is installed, or with `telemetry: false`: then nothing is observed.
  const telemetry = telemetryFrom(options.telemetry);
  const now = options.now ?? Date.now;
  const ownsStore = options.store === undefined;
  const store = options.store ?? createMemoryStore();
  const sinkStats: SinkStats = { written: 0, failed: 0 };
  const sink = toUsageSink(options.usage, sinkStats);
  const stats = { requests: 0 };
  const tally: SettleTally = { usageDistrusted: 0, usageUnpriced: 0 };
  const observedStore = telemetry === null ? store : telemetry.store(store);
  const reservationTtlMs = options.reservationTtlMs ?? 5 * 60_000;
  // Renewals and settle retries go through the observed store: their round trips and retries are measured.
  const holds = new HoldKeeper(observedStore, reservationTtlMs, options.settleRetry, () => telemetry?.settleFailed());
  const usageStats = (): UsageStats => {
    const handed = sinkStats.written + sinkStats.failed;
    const own = sink.stats?.();
    if (own !== undefined) return { handed, written: own.written, queued: own.queued, dropped: own.dropped, failed: own.failed + sinkStats.failed };
    const pending = sinkStats.pending ?? 0;
    return { handed, written: sinkStats.written - pending, queued: pending, dropped: 0, failed: sinkStats.failed };
  };
  /** What `close()` waits for: calls, streams and bookkeeping under way (a `SlotSet`: one per request). */
  const openStreams = new SlotSet<Promise<void>>();
  /** Deferred work not started yet: `close()` starts it. */
  const notStarted = new SlotSet<() => Promise<void>>();
  let closed = false;

  const upstreamFetch: UpstreamFetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  // Replaced whole by `reload`: a request reads it once, so it never mixes two revisions.
  let deps: WalkDeps = {
    registry,
    codecs,
    policy: first.policy,
    identity,
    store: observedStore,
    sink,
    secrets: new SecretCache(secretResolver(options.secrets), signers, upstreamFetch, now),
    tokenizers,
    kinds,
    fetch: upstreamFetch,
    breakers: new Breakers(options.breaker, now),
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    earlyCheckBytes: options.earlyCheckBytes ?? DEFAULT_EARLY_CHECK_BYTES,
    failover: options.failover ?? {},
    sizing: options.sizing ?? {},
    reservationTtlMs,
    filters: options.filters ?? [],
    dlp: options.dlp?.engine === undefined ? null : options.dlp.engine.stage({ recognizers: options.dlp.recognizers ?? [], key: options.dlp.key }),
    content: options.content?.engine ?? null,
    now,
    timezone: first.policy?.timezone ?? 'UTC',
    holds,
    tally,
    ...(options.notify === undefined ? {} : { notify: options.notify }),
    ...(options.tenantOf === undefined ? {} : { tenantOf: options.tenantOf }),
    ...(options.cacheShaping === undefined ? {} : { cacheShaping: options.cacheShaping }),
    trackStream(done) {
      const slot = openStreams.add(done);
      void done.finally(() => openStreams.delete(slot, done));
    },
    trackDeferred(work) {
      let running: Promise<void> | undefined;
      let slot = -1;
      const run = (): Promise<void> => {
        if (running === undefined) {
          notStarted.delete(slot, run);
          running = work().catch(() => {});
          deps.trackStream(running);
        }
        return running;
      };
      // After `close()` began nobody else may run it: start it now, so close() waits for it.
      if (closed) void run();
      else slot = notStarted.add(run);
      return run;
    },
  };

  const noop = () => {};
  const brandOf = (model: string) => deps.registry.models[model]?.brand;
  telemetry?.observe({
    usage: usageStats,
    *breakers() {
      for (const d of Object.values(deps.registry.deployments)) if (d.enabled) yield [d.id, deps.breakers.state(d.id)];
    },
  });

  function reply(request: Request | GatewayRequest, replyOptions?: ReplyOptions): Promise<GatewayReply> {
    stats.requests++;
    const current = deps;
    const ctx = new RequestContext(now, current.registry.revision, policyRevision);
    const observer = telemetry === null ? new RequestTiming() : telemetry.request(request.headers, brandOf);
    ctx.observer = observer;
    if (replyOptions?.defer !== undefined) ctx.defer = replyOptions.defer.bind(replyOptions);
    if (closed) {
      observer.unrecorded(503);
      return Promise.resolve(
        errorReply(codecs, new GatewayError('unavailable', 'The gateway is shutting down.'), null, {
          'x-tollgate-request-id': ctx.id,
          'server-timing': observer.serverTiming(),
        }),
      );
    }
    const answer = answerFor(request, ctx, current);
    // close() waits for calls under way too: their upstream call, settle and record.
    deps.trackStream(answer.then(noop, noop));
    return answer;
  }

  async function answerFor(request: Request | GatewayRequest, ctx: RequestContext, current: WalkDeps): Promise<GatewayReply> {
    try {
      const answer = await walk(request, ctx, current);
      if (answer.headers['x-tollgate-request-id'] === undefined) answer.headers['x-tollgate-request-id'] = ctx.id;
      answer.headers['server-timing'] = ctx.observer!.serverTiming();
      return answer;
    } catch (error) {
      // Anything unexpected: fail closed, in the caller's format, and still record it.
      const e = GatewayError.from(error);
      await holds.release(ctx.id, tokenAdjustments(ctx, 0));
      ctx.reject(e.status, ctx.reason ?? `error:${e.code}`, 'error');
      writeRecord(ctx, sink);
      return errorReply(codecs, e, ctx.entryFormat, { 'x-tollgate-request-id': ctx.id, 'server-timing': ctx.observer!.serverTiming() });
    }
  }

  const handle = async (request: Request | GatewayRequest): Promise<Response> => {
    const answer = await reply(request);
    try {
      return replyToResponse(answer);
    } catch (error) {
      // A reply a `Response` cannot carry (a header value it refuses): fail closed, never throw.
      if (answer.body instanceof ReadableStream) await answer.body.cancel().catch(() => {});
      return replyToResponse(errorReply(codecs, GatewayError.from(error), null, { 'x-tollgate-request-id': answer.headers['x-tollgate-request-id'] ?? '' }));
    }
  };

  PAIRS.set(reply, handle);
  if (telemetry !== null) PENDING.set(handle, () => telemetry.pending());

  const gatewayFetch = ((input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init))) as typeof fetch;

  return {
    handle,
    reply,
    fetch: gatewayFetch,
    get registry() {
      return deps.registry;
    },
    get policy() {
      return deps.policy;
    },
    get policyRevision() {
      return policyRevision;
    },
    reload(next) {
      // Everything is checked before anything changes: on any violation the last good
      // revision stays in force and the error lists what is wrong.
      const nextRegistry = next.registry === undefined ? deps.registry : registryFrom(next.registry);
      assertCodecsCover(nextRegistry, deps.codecs);
      assertSignersCover(nextRegistry, deps.secrets.signers);
      assertTokenizersCover(nextRegistry, deps.tokenizers);
      assertKindsServed(nextRegistry, deps.kinds);
      const nextInput = next.policy === undefined ? policyInput : next.policy;
      // The policy is checked against the registry it will run with, also when only the registry changed.
      const loaded = policyFrom(nextInput, nextRegistry, options.dlp, options.content, options.notify !== undefined);
      assertPolicyAccepted(options, loaded.policy);
      // A new identity is a new resolver (its keys and issuers whole); JWKS are fetched again on first use.
      const nextIdentity = next.identity === undefined ? deps.identity : identityFrom({ ...options, identity: next.identity });
      deps = { ...deps, registry: nextRegistry, policy: loaded.policy, timezone: loaded.policy?.timezone ?? 'UTC', identity: nextIdentity };
      policyInput = nextInput;
      policyRevision = loaded.revision;
      return { registryRevision: nextRegistry.revision, policyRevision: loaded.revision };
    },
    stats(): GatewayStats {
      const h = holds.snapshot();
      return {
        requests: stats.requests,
        usageWritten: sinkStats.written,
        usageFailed: sinkStats.failed,
        settleFailures: h.failed,
        settlesPending: h.pending,
        settleRetries: h.retries,
        usageDistrusted: tally.usageDistrusted,
        usageUnpriced: tally.usageUnpriced,
        usage: usageStats(),
      };
    },
    async close(closeOptions = {}) {
      closed = true;
      // Settling and recording handed to a caller that has not run them yet: run them now.
      for (const run of notStarted.values()) void run();
      const drainMs = closeOptions.drainMs ?? 30_000;
      const drainUntil = holds.now() + drainMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let drained = false;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs);
        (timer as { unref?: () => void }).unref?.();
      });
      // A request still under way may open a stream or hand over its bookkeeping while we wait:
      // wait for those too, until nothing is open or the drain time is up.
      void deadline.then(() => (drained = true));
      while (openStreams.size > 0 && !drained) await Promise.race([Promise.all(openStreams.values()), deadline]);
      if (timer !== undefined) clearTimeout(timer);
      // Settles the store failed are retried until the drain time is up; what is left is counted.
      await holds.drain(drainUntil);
      // Spans and metrics the requests left for after their answers go to the SDK now.
      telemetry?.flush();
      await sink.flush().catch(() => {});
      await sink.close().catch(() => {});
      if (ownsStore) await store.close().catch(() => {});
      telemetry?.shutdown();
    },
  };
}
