import type { CacheShapingOptions, Codec } from '@tollgate/codecs/base';
import type { Policy, PolicyFileInput, Principal, SpendNotification } from '@tollgate/policy';
import type { IdentityOptions, JwtEngine } from '../identity/index.js';
import type { Registry, RegistryFileInput } from '../registry/index.js';
import type { StateStore } from '../store/types.js';
import type { ConfigIssue } from './config-error.js';
import type { GatewayReply, GatewayRequest, ReplyOptions, UpstreamFetch } from './request.js';
import type { BreakerOptions } from './breaker.js';
import type { FailoverOptions } from './dispatch.js';
import type { RequestFilter } from './filters.js';
import type { SecretsOption } from './secrets.js';
import type { SizingOptions } from './sizing.js';
import type { UpstreamSigner } from './signers.js';
import type { TokenCounter } from './token-counters.js';
import type { OperationKinds } from './walk-deps.js';
import type { TenantOf } from './keys.js';
import type { SettleRetryOptions } from './holds.js';
import type { UsageOption } from './usage-record.js';
import type { TelemetryOption } from '../telemetry/options.js';
import type { DlpEngine } from '../dlp/engine.js';
import type { ContentEngine } from './policy-stage.js';
import type { Recognizer } from '@tollgate/policy/detectors';

/** DLP beyond the policy file: the engine, recognizers a team plugs in, the surrogate key. */
export interface DlpOptions {
  /**
   * The DLP engine (`dlpEngine` of `@tollgate/core/dlp`). `createGateway` of `@tollgate/core`
   * passes it by default; `@tollgate/core/minimal` refuses a policy with DLP keys without it.
   */
  engine?: DlpEngine;
  /** Async recognizers (a model-based PII recognizer), run on every request text within their timeout; failing closed. */
  recognizers?: readonly Recognizer[];
  /**
   * The secret surrogates are derived from (HMAC-SHA256): the same value gets the same
   * surrogate while the key is the same, so prompt caches and signed reasoning stay valid
   * across turns. Default: a random key per gateway instance.
   */
  key?: string;
}

/** The engine of the policy's tool allow lists and prompts. */
export interface ContentOptions {
  /**
   * `contentEngine` of `@tollgate/core/content`. `createGateway` of `@tollgate/core` passes it
   * by default; `@tollgate/core/minimal` refuses a policy with `tools.allow_lists` or `prompts`
   * without it.
   */
  engine?: ContentEngine;
}

export interface GatewayOptions {
  /**
   * The registry: the object a registry YAML/JSON file parses to (`RegistryFileInput`), or one
   * already loaded by `loadRegistry`. Validated here; an invalid one throws `GatewayConfigError`.
   */
  registry: RegistryFileInput | Registry;
  /**
   * The policy: the object a policy file parses to (`PolicyFileInput`). Without one, every
   * catalog model is allowed and nothing is capped.
   */
  policy?: PolicyFileInput | null;
  /**
   * Refuse a policy this host cannot enforce as written. Called with every policy the gateway is
   * to run (null for none) — at start and on each `reload`, once the policy is valid and before
   * anything changes; the issues it returns refuse it with `GatewayConfigError` (source
   * `options`), and on reload the last good revision stays in force. `createEdgeHandler` uses it
   * to refuse hard caps held by its per-isolate store.
   */
  checkPolicy?: (policy: Policy | null) => readonly ConfigIssue[];
  /** Virtual keys, JWT issuers and applications (the service config's `identity`), or a key-hash lookup. */
  identity: IdentityOptions;
  /** Where counters, holds and rate buckets live. Default: a new in-memory store (per process). */
  store?: StateStore;
  /** Where usage records go: a sink or a function. Default: nowhere (counted only). */
  usage?: UsageOption;
  /** Provider secrets by name. Default: the process environment, where the runtime has one. */
  secrets?: SecretsOption;
  /**
   * How upstreams are called. Default: `globalThis.fetch`. Any `fetch` will do; a transport may
   * also answer with a plain `UpstreamResponse` (status, headers, body as any async iterable).
   */
  fetch?: UpstreamFetch;
  /** Request bodies larger than this are refused with 413. Default 32 MiB. */
  maxRequestBytes?: number;
  /**
   * Request bodies at least this large (declared, or once read) are first checked against the
   * rate limits and hard spend caps that would refuse them whatever they hold, before they are
   * parsed: a capped key cannot make the gateway parse megabytes only to refuse them. Default
   * 1 MiB.
   */
  earlyCheckBytes?: number;
  failover?: FailoverOptions;
  breaker?: BreakerOptions;
  sizing?: SizingOptions;
  /**
   * How long a reservation lives without renewal. Default 5 minutes. Every request renews its
   * hold (about every quarter of this) from admission until its settle succeeds; only the holds
   * of a gateway that died expire.
   */
  reservationTtlMs?: number;
  /** Retries of settles the store failed (backoff, how long, how many wait). */
  settleRetry?: SettleRetryOptions;
  /** Request filters (DLP, policy prompts, cache shaping), run in order after routing. */
  filters?: RequestFilter[];
  /** DLP engine, recognizers and surrogate key (the policy's `dlp` says what to do). */
  dlp?: DlpOptions;
  /** The engine of the policy's tool allow lists and prompts (`@tollgate/core/minimal` refuses them without it). */
  content?: ContentOptions;
  /** Clock for records and policy windows. Default `Date.now`. */
  now?: () => number;
  /** JWKS fetching (identity): the fetch to use and its cache timings. */
  jwksFetch?: typeof fetch;
  /**
   * JWT verification for the identity section's `jwt` entries. `createGateway` of
   * `@tollgate/core` uses `jwtEngine` (jose) by default; the one of `@tollgate/core/minimal`
   * refuses `jwt` entries unless given `jwt: { engine: jwtEngine }` from `@tollgate/core/jwt`.
   */
  jwt?: { engine?: JwtEngine };
  /**
   * Prompt-cache shaping for Anthropic-family upstreams (opt-in): breakpoints after the last
   * tool, the system prompt and the latest message, at most four, never removing the client's.
   */
  cacheShaping?: CacheShapingOptions;
  /**
   * The tenant a principal belongs to, for the Redis Cluster hash tag of its store keys: every
   * counter, cap, hold and rate-bucket key of the principal then starts with `{<tenant>}:`, so
   * a Redis store made with `hashTag: hashTagFromKey()` keeps each tenant's keys in one slot
   * (every reservation stays one atomic script) and spreads tenants over the cluster. Default:
   * none (keys carry no tag; the Redis store's own tag applies).
   */
  tenantOf?: TenantOf;
  /** Spend notifications (policy `notify` actions), delivered once per crossing per window. */
  notify?: (notification: SpendNotification, principal: Principal) => void;
  /**
   * The wire formats the gateway reads and writes, as codec objects
   * (`import { openaiChatCodec } from '@tollgate/codecs/openai-chat'`). Every entry route and
   * enabled deployment of the registry needs its format's codec, else the gateway refuses to
   * start. `createGateway` from `@tollgate/core` defaults to every format; the one from
   * `@tollgate/core/minimal` requires the list, so a bundle holds only the codecs listed.
   */
  codecs?: readonly Codec[];
  /**
   * Signers for credentials presented by signing each call (`aws_sigv4`: import
   * `awsSigV4Signer` from `@tollgate/core/aws-sigv4`). A registry with such a credential needs
   * its signer, else the gateway refuses to start. `createGateway` from `@tollgate/core` includes
   * every signer by default; the one from `@tollgate/core/minimal` only those listed.
   */
  signers?: readonly UpstreamSigner[];
  /**
   * Token counters for the public tokenizers models declare (`tokenizer:` in the registry), used
   * for count_tokens requests no deployment can count: `openaiTokenizers` from
   * `@tollgate/core/tokenizers` (needs the optional gpt-tokenizer package). A registry that
   * declares a tokenizer without its counter is refused at start.
   */
  tokenizers?: readonly TokenCounter[];
  /**
   * What serves `kind: count_tokens` and `kind: embed` entry routes: `operationKinds` from
   * `@tollgate/core/kinds`. `createGateway` from `@tollgate/core` includes it; the one from
   * `@tollgate/core/minimal` refuses a registry with such routes without it.
   */
  kinds?: OperationKinds;
  /**
   * OpenTelemetry metrics and traces (GenAI semantic conventions). With `createGateway` of
   * `@tollgate/core`: default the global providers of `@opentelemetry/api` — a no-op, at no
   * cost, until the host installs an SDK (before creating the gateway); `false` turns them off.
   * With the one of `@tollgate/core/minimal`: off unless `telemetry.engine` is given
   * (`openTelemetry` of `@tollgate/core/telemetry`); options without it are refused.
   */
  telemetry?: TelemetryOption;
}

/** `createGateway`'s options in `@tollgate/core/minimal`: the codec list is required. */
export interface MinimalGatewayOptions extends GatewayOptions {
  codecs: readonly Codec[];
}

export interface GatewayStats {
  /** Requests handled. */
  requests: number;
  /** Usage records handed to the sink, and those the sink failed to take. */
  usageWritten: number;
  usageFailed: number;
  /**
   * Settlements that never succeeded: retried for `settleRetry.maxRetryMs`, or still failing
   * when `close()`'s drain time ran out (their holds expire after their TTL).
   */
  settleFailures: number;
  /** Settlements the store failed that are waiting for a retry now. */
  settlesPending: number;
  /** Settle attempts made after a failed one. */
  settleRetries: number;
  /**
   * Requests whose upstream-reported usage could not be true — counts that are not numbers, or
   * more than the request could use (its prompt and output bounds) — charged as estimated and
   * held to those bounds (the record says `measured: false`).
   */
  usageDistrusted: number;
  /** Requests whose usage no exact price could be put on (counts × prices past 2^53 micro-USD): charged the worst case admission sized, recorded with `cost_micros: null`. */
  usageUnpriced: number;
  /** What became of the usage records, as far as the sink reports it. */
  usage: UsageStats;
}

/**
 * Usage records from the gateway to their backend. A sink that reports its own account
 * (`stats()`, as the JSON-lines and Postgres sinks do) fills in what it wrote, holds, dropped and
 * failed; a function sink is written once its promise resolves.
 */
export interface UsageStats {
  /** Records the gateway handed to the sink (one per request). */
  handed: number;
  /** Records the backend accepted. */
  written: number;
  /** Records waiting in the sink or in flight. */
  queued: number;
  /** Records the sink refused at the door (queue full, closed, not serializable). */
  dropped: number;
  /** Records the backend (or the sink's `write`) failed to take. */
  failed: number;
}

export interface Gateway {
  /** Govern one request: `Request → Response`, in the caller's wire format. */
  handle(request: Request | GatewayRequest): Promise<Response>;
  /**
   * The same, answering with a plain `GatewayReply` (status, header record, whole body or byte
   * stream) instead of a `Response`: for server adapters that write to their own socket.
   */
  reply(request: Request | GatewayRequest, options?: ReplyOptions): Promise<GatewayReply>;
  /** A `fetch` to hand to a vendor SDK: `new OpenAI({ fetch: gateway.fetch, apiKey: virtualKey })`. */
  readonly fetch: typeof fetch;
  /** The loaded registry and policy, and their revisions. */
  readonly registry: Registry;
  readonly policy: Policy | null;
  readonly policyRevision: string | null;
  /**
   * Swap in a changed registry, policy and/or identity (the objects their files parse to;
   * `policy: null` removes the policy; `identity` replaces the keys, JWT issuers and
   * applications whole, so a key left out no longer authenticates). Requests already under way
   * finish with the revision they started with; later ones use the new one. Everything is
   * validated first: on any violation it throws `GatewayConfigError` listing them all and the
   * last good revision stays in force.
   */
  reload(next: { registry?: RegistryFileInput | Registry; policy?: PolicyFileInput | null; identity?: IdentityOptions }): {
    registryRevision: string;
    policyRevision: string | null;
  };
  stats(): GatewayStats;
  /**
   * Refuse new calls; wait for calls under way and open streams to finish, their settling and
   * usage records included (bounded by `drainMs`, default 30 s); flush usage; close the store
   * if the gateway made it.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

export type { Policy, PolicyFileInput };
export type { Registry, RegistryFileInput };
export type { UsageOption, SecretsOption };
