/**
 * The dependency bag of the request walk (`WalkDeps`) and the contract of what serves the other
 * operation kinds (`OperationKinds`). Its own module, holding types only, so the walk and the
 * modules it calls (respond, kinds, budget and discovery routes, early check) all import it
 * without importing each other.
 */
import type { CacheShapingOptions, CodecTable } from '@tollgate/codecs/base';
import type { Policy, Principal, SpendNotification } from '@tollgate/policy';
import type { IdentityResolver } from '../identity/index.js';
import type { EntryMatch, Registry } from '../registry/index.js';
import type { StateStore } from '../store/types.js';
import type { Breakers } from './breaker.js';
import type { RequestContext } from './context.js';
import type { FailoverOptions } from './dispatch.js';
import type { RequestFilter } from './filters.js';
import type { SettleTally } from './finalize.js';
import type { HoldKeeper } from './holds.js';
import type { TenantOf } from './keys.js';
import type { ContentEngine, DlpDeps } from './policy-stage.js';
import type { GatewayReply, GatewayRequest, UpstreamFetch } from './request.js';
import type { SecretCache } from './secrets.js';
import type { SizingOptions } from './sizing.js';
import type { TokenCounterTable } from './token-counters.js';
import type { UsageSink } from './usage-record.js';

/** Everything the walk needs that lives as long as the gateway. */
export interface WalkDeps {
  registry: Registry;
  /** The codecs this gateway reads and writes, by format; every route and enabled deployment has one. */
  codecs: CodecTable;
  policy: Policy | null;
  identity: IdentityResolver;
  store: StateStore;
  sink: UsageSink;
  secrets: SecretCache;
  fetch: UpstreamFetch;
  breakers: Breakers;
  maxRequestBytes: number;
  /** Bodies at least this large are checked against rate limits and caps before being parsed. */
  earlyCheckBytes: number;
  failover: FailoverOptions;
  sizing: SizingOptions;
  reservationTtlMs: number;
  filters: RequestFilter[];
  /** The DLP engine and its recognizers, or null (no DLP in this gateway). */
  dlp: DlpDeps | null;
  /** Tool allow lists and policy prompts; null without the engine (the policy then has neither). */
  content: ContentEngine | null;
  now: () => number;
  timezone: string;
  /** Renews holds from admission until settle, and retries failed settles. */
  holds: HoldKeeper;
  /** Counts of what settling distrusted (`GatewayStats`). */
  tally: SettleTally;
  trackStream(done: Promise<void>): void;
  /** Work handed to `reply`'s `defer`: the returned runner does it once; `close()` runs it if nobody has. */
  trackDeferred(work: () => Promise<void>): () => Promise<void>;
  notify?: (notification: SpendNotification, principal: Principal) => void;
  cacheShaping?: CacheShapingOptions;
  /** Local token counters by encoding, for count_tokens requests no deployment counts. */
  tokenizers: TokenCounterTable;
  /** What serves count_tokens and embed routes (none: the gateway refused a registry with any). */
  kinds: OperationKinds | null;
  tenantOf?: TenantOf;
}

export type KindEntry = EntryMatch & { kind: 'count_tokens' | 'embed' };

/**
 * What serves the routes of kind count_tokens and embed (`options.kinds`): `operationKinds` from
 * `@tollgate/core/kinds`. `createGateway` of `@tollgate/core` includes it; a gateway built on
 * `@tollgate/core/minimal` without it refuses a registry with such routes.
 */
export interface OperationKinds {
  readonly walk: (request: GatewayRequest, ctx: RequestContext, deps: WalkDeps, entry: KindEntry) => Promise<GatewayReply>;
}
