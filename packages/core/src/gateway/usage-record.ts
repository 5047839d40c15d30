import type { WireFormat } from '@tollgate/codecs/base';
import type { CostMicros } from '../pricing/types.js';

export type { CostMicros };

/** The principal as it appears in a usage record. */
export interface RecordPrincipal {
  kind: string;
  id: string;
  /** A JWT principal's issuer (its counters are kept apart from other issuers'); null otherwise. */
  issuer: string | null;
  /** Reporting chain, nearest leader first (access rules by leader can be replayed). */
  leaders?: string[];
  tier: string | null;
  /** The caller's team (population key `teams`, `per: team` pools). */
  team: string | null;
  bu: string | null;
  application: string | null;
  platform: string | null;
  workflow: string | null;
  /**
   * Attribution tags: a platform token's allow-listed tags (`jwt[].allowed_tags`), or those an
   * identity function put on the principal; `{}` when none. Never authority: no policy reads them.
   */
  tags?: Record<string, string>;
}

/** A spend rule as admission saw it: the counter it read and its threshold, in micro-USD. */
export interface RecordSpendRule {
  rule: string;
  action: 'block' | 'pause';
  /** Whose spend: `user` (the caller's own), `team`, `bu`, `application`, `workflow`, `platform`, `org`. */
  per: string;
  /** The pool's name: the caller's id for `user`, its team, BU, … name, `org`. */
  pool: string;
  /** A registry tag or model id. */
  scope: string;
  window: string;
  window_key: string;
  /** Settled spend in the rule's window and scope when the request was admitted. */
  used_micros: number;
  limit_micros: number;
  enforced: boolean;
}

/**
 * What the admission decision used, so one record explains itself (`tollgate explain`) and a
 * replay can size the request as the gateway did (`tollgate what-if`). Null for requests refused
 * before admission (authentication, unknown model, access).
 */
export interface RecordDecision {
  /**
   * When admission decided, in ms after `ts` (authentication and reading the body come first):
   * rate windows and spend counters were read at that time. Absent in records of earlier versions.
   */
  at_ms?: number;
  /** The request's worst-case cost (dearest candidate), in micro-USD. */
  worst_case_micros: number;
  /** Prompt bound plus output bound, in tokens (what token rate limits counted). */
  token_bound: number;
  /** Block and pause entries that applied, in precedence order. */
  spend: RecordSpendRule[];
  /** The first blocking entry, when one blocked. */
  limiting: {
    rule: string;
    reason: string;
    per: string;
    pool: string;
    scope: string;
    window: string;
    window_key: string;
    used_micros: number;
    limit_micros: number;
  } | null;
  /** The rate limits taken. */
  rate: Array<{ rule: string; kind: 'requests' | 'tokens'; limit: number; window_ms: number; amount: number }>;
  /** A `no_promote` action was active: no deployment or substitute dearer than the model asked for was used. */
  no_promote: boolean;
}

export interface RecordUsage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  cache_write_1h: number;
  reasoning: number;
  measured: boolean;
}

/** DLP counts by entity type: the action taken and how many values. Never a value or a surrogate. */
export type RecordDlp = Record<string, { action: string; count: number }>;

export type RecordStatus = 'ok' | 'rejected' | 'upstream_error' | 'cancelled' | 'error';

/**
 * One record per request, rejections and aborts included. Field names are a contract
 * (docs/usage-records.md): add fields freely, never rename. Never holds prompt text or secrets.
 */
export interface UsageRecord {
  schema: 1;
  request_id: string;
  ts: string;
  principal: RecordPrincipal | null;
  entry_format: WireFormat | null;
  upstream_format: WireFormat | null;
  requested_model: string | null;
  model: string | null;
  substituted_from: string | null;
  deployment: string | null;
  /** The `region` of the deployment that answered (null: none answered, or it names none). */
  region: string | null;
  provider: string | null;
  upstream_model: string | null;
  stream: boolean;
  usage: RecordUsage | null;
  cost_micros: CostMicros | null;
  /** What the admission reserved (the worst case), for audits of the bound. */
  reserved_micros: number;
  status: RecordStatus;
  reason: string | null;
  http_status: number;
  would_block: string[];
  decision?: RecordDecision | null;
  ttfb_ms: number | null;
  duration_ms: number;
  attempts: number;
  unclassified_fields: number;
  tools_declared: string[];
  tools_invoked: string[];
  /** What request-side DLP found and did, by entity: `{ email: { action: 'redact', count: 2 } }`. */
  dlp: RecordDlp;
  /** The same for the answer (`dlp.scan_responses`); `pseudonymize` acts as `redact` there. */
  dlp_response: RecordDlp;
  /** Policy prompts placed before the client's system prompt, as `id@version`. */
  policy_prompts: string[];
  registry_revision: string;
  policy_revision: string | null;
  /**
   * What the request did: `generate`, `count_tokens` (free: cost 0) or `embed`. The gateway
   * always writes it (optional in the type only for records made elsewhere before it existed).
   */
  kind?: 'generate' | 'count_tokens' | 'embed';
  /** For `count_tokens`: the input tokens counted (what the caller was told), else null. Always written. */
  counted_tokens?: number | null;
  /**
   * How many things the translation had to drop or change (a reasoning signature another vendor
   * cannot read, a field with no equivalent, …), request and answer; 0 on identity plans. The
   * answer names them in `x-tollgate-warnings`. Always written.
   */
  translation_warnings?: number;
}

/** What a sink did with the records handed to it (the sinks of `@tollgate/adapters-node` report these). */
export interface UsageSinkStats {
  /** Records the backend accepted. */
  written: number;
  /** Records refused at the door: queue full, sink closed, or not serializable. */
  dropped: number;
  /** Records the backend could not take (after the sink's retries). */
  failed: number;
  /** Records waiting or in flight. */
  queued: number;
}

/** Where usage records go. `write` must never throw or block the response. */
export interface UsageSink {
  write(record: UsageRecord): void;
  /** Resolves when everything written so far is durable (or dropped and counted). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Optional: the sink's own account, so `gateway.stats()` and metrics show its losses. */
  stats?(): UsageSinkStats;
}

export type UsageOption = UsageSink | ((record: UsageRecord) => void | Promise<void>);

export interface SinkStats {
  written: number;
  failed: number;
  /** Records a function sink is still writing (its promise is pending). */
  pending?: number;
}

/**
 * Normalise `options.usage`: a sink is used as is; a function becomes a sink whose failures
 * (thrown or rejected) are counted, never thrown into the request path.
 */
export function toUsageSink(option: UsageOption | undefined, stats: SinkStats): UsageSink {
  if (option === undefined) {
    return { write: () => void stats.written++, flush: async () => {}, close: async () => {} };
  }
  if (typeof option !== 'function') {
    const sink = option;
    return {
      write(record) {
        try {
          sink.write(record);
          stats.written++;
        } catch {
          stats.failed++;
        }
      },
      flush: () => sink.flush(),
      close: () => sink.close(),
      ...(typeof sink.stats === 'function' ? { stats: () => sink.stats!() } : {}),
    };
  }
  const fn = option;
  const pending = new Set<Promise<void>>();
  return {
    write(record) {
      try {
        const result = fn(record);
        stats.written++;
        if (result instanceof Promise) {
          const p: Promise<void> = result.catch(() => {
            stats.failed++;
            stats.written--;
          });
          pending.add(p);
          stats.pending = pending.size;
          void p.finally(() => {
            pending.delete(p);
            stats.pending = pending.size;
          });
        }
      } catch {
        stats.failed++;
      }
    },
    async flush() {
      await Promise.all([...pending]);
    },
    async close() {
      await Promise.all([...pending]);
    },
  };
}
