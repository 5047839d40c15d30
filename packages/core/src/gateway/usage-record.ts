import type { WireFormat } from '@tollgate/codecs/base';
import type { CostMicros } from '../pricing/types.js';

export type { CostMicros };

/** The principal as it appears in a usage record. */
export interface RecordPrincipal {
  kind: string;
  id: string;
  /** A JWT principal's issuer (its counters are kept apart from other issuers'); null otherwise. */
  issuer: string | null;
  tier: string | null;
  bu: string | null;
  application: string | null;
  platform: string | null;
  workflow: string | null;
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

export type RecordStatus = 'ok' | 'rejected' | 'upstream_error' | 'cancelled' | 'error';

/**
 * One record per request, rejections and aborts included. Field names are a contract
 * (DESIGN.md): add fields freely, never rename. Never holds prompt text or secrets.
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
  ttfb_ms: number | null;
  duration_ms: number;
  attempts: number;
  unclassified_fields: number;
  tools_declared: string[];
  tools_invoked: string[];
  registry_revision: string;
  policy_revision: string | null;
}

/** Where usage records go. `write` must never throw or block the response. */
export interface UsageSink {
  write(record: UsageRecord): void;
  /** Resolves when everything written so far is durable (or dropped and counted). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export type UsageOption = UsageSink | ((record: UsageRecord) => void | Promise<void>);

export interface SinkStats {
  written: number;
  failed: number;
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
          void p.finally(() => pending.delete(p));
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
