/**
 * The service config of `tollgate serve` (DESIGN.md, "Service config"): a strict zod schema,
 * unknown keys rejected, every violation reported. Relative paths resolve against the
 * config file's folder.
 */
import * as z from 'zod';
import { IdentityConfigSchema } from '@tollgate/core';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;
export const DEFAULT_DRAIN_TIMEOUT_S = 30;
/** The upstream transport's time bounds (seconds). */
export const DEFAULT_UPSTREAM = { connect_timeout_s: 10, headers_timeout_s: 300, idle_timeout_s: 300, attempt_timeout_s: 3600 } as const;

const seconds = (max: number) => z.number('a number of seconds').positive('more than 0 seconds').max(max, `at most ${max} seconds`);

/** How `serve` calls upstreams: time bounds, connection limits, TLS trust, HTTP/2. */
const UpstreamConfig = z.strictObject({
  /** Opening a connection (TCP, a proxy's tunnel, TLS). */
  connect_timeout_s: seconds(600).default(DEFAULT_UPSTREAM.connect_timeout_s),
  /** From the start of an attempt to the final response head; interim heads and a slow head do not extend it. */
  headers_timeout_s: seconds(86_400).default(DEFAULT_UPSTREAM.headers_timeout_s),
  /** Silence in an upstream body, and a client that stops reading a stream, past this are cut. */
  idle_timeout_s: seconds(86_400).default(DEFAULT_UPSTREAM.idle_timeout_s),
  /** One attempt from its start to the answer's last byte. */
  attempt_timeout_s: seconds(7 * 86_400).default(DEFAULT_UPSTREAM.attempt_timeout_s),
  /** At most this many connections per upstream origin (calls beyond wait); default unlimited. */
  max_connections_per_origin: z.number().int('a whole number').min(1).max(1_000_000).optional(),
  /** Speak HTTP/2 to https upstreams that offer it. */
  http2: z.boolean().default(false),
  /** PEM file of the certificate authorities trusted for https upstreams instead of Node's defaults. */
  ca_file: z.string().min(1).optional(),
});

const RedisUrl = z
  .string()
  .regex(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL');

const StoreObject = z.strictObject({
  url: RedisUrl,
  /** Prefix of every key (default `tg:`). */
  key_prefix: z.string().min(1).max(64).optional(),
  /** How long a reservation lives without renewal; live streams renew it (default 300). */
  reservation_ttl_s: z.number().int('whole seconds').min(5).max(86_400).optional(),
});

const Store = z.union([z.literal('memory'), RedisUrl, StoreObject], {
  error: () => 'store is "memory", a redis:// URL, or { url, key_prefix, reservation_ttl_s }',
});

const Usage = z
  .string()
  .refine(
    (s) => s === 'stdout' || s === 'none' || /^file:.+/.test(s) || /^postgres(ql)?:\/\/\S+$/.test(s),
    'usage is "stdout", "file:<path>", a postgres:// URL, or "none"',
  );

const HttpUrl = z.string().regex(/^https?:\/\/\S+$/, 'an http:// or https:// URL');

/** `telemetry`: where metrics and traces go. At least one exporter; absent means off. */
const Telemetry = z
  .strictObject({
    /** Prometheus text on `GET /metrics`, on a listener of its own. */
    prometheus: z
      .strictObject({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int('a whole number').min(0).max(65_535).default(9464),
      })
      .optional(),
    /** OTLP export of traces and metrics (endpoint, headers and protocol may also come from OTEL_EXPORTER_OTLP_*). */
    otlp: z
      .strictObject({
        /** The collector's base URL, e.g. `http://collector:4318` (`/v1/traces` and `/v1/metrics` are appended). */
        endpoint: HttpUrl.optional(),
        protocol: z.enum(['http/protobuf', 'http/json'], 'protocol is "http/protobuf" or "http/json" (gRPC is not supported: use port 4318)').optional(),
        headers: z.record(z.string().min(1), z.string()).optional(),
      })
      .optional(),
    /** `service.name` of the resource (default `tollgate`; OTEL_SERVICE_NAME overrides it). */
    service_name: z.string().min(1).max(256).optional(),
  })
  .refine((t) => t.prometheus !== undefined || t.otlp !== undefined, 'telemetry needs prometheus and/or otlp (remove the section to turn telemetry off)');

const Log = z.strictObject({
  /** One JSON line per answered request (no prompt text, no query string), or off. */
  access: z.enum(['stdout', 'off'], 'access is "stdout" or "off"').default('off'),
});

export const ServiceConfigSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().min(1).default(DEFAULT_HOST),
      port: z.number().int('a whole number').min(0).max(65_535).default(DEFAULT_PORT),
    })
    .default({ host: DEFAULT_HOST, port: DEFAULT_PORT }),
  /** The registry file (YAML or JSON). */
  registry: z.string('the path of the registry file (YAML or JSON)').min(1, 'the path of the registry file (YAML or JSON)'),
  /** The policy file (optional: without one, every catalog model is allowed and nothing is capped). */
  policy: z.string().min(1).optional(),
  identity: z.optional(IdentityConfigSchema),
  store: Store.default('memory'),
  usage: Usage.default('stdout'),
  /** Provider secrets are read from the environment by name. */
  secrets: z.literal('env', 'only "env" is supported: provider secrets are read from the environment by name').default('env'),
  max_request_bytes: z.number().int().min(1024).max(1024 * 1024 * 1024).default(DEFAULT_MAX_REQUEST_BYTES),
  drain_timeout_s: z.number().min(0).max(3600).default(DEFAULT_DRAIN_TIMEOUT_S),
  telemetry: Telemetry.optional(),
  log: Log.default({ access: 'off' }),
  upstream: UpstreamConfig.default({ ...DEFAULT_UPSTREAM, http2: false }),
});

/** The service config as written. */
export type ServiceConfigInput = z.input<typeof ServiceConfigSchema>;
/** The service config with defaults filled in. */
export type ServiceConfig = z.output<typeof ServiceConfigSchema>;

/** What a config's identity section holds, for log lines: `2 keys, 1 JWT issuer(s)`. */
export function identitySummary(identity: ServiceConfig['identity']): string {
  const keys = (identity?.virtual_keys?.length ?? 0) + (identity?.applications?.length ?? 0);
  return `${keys} key${keys === 1 ? '' : 's'}, ${identity?.jwt?.length ?? 0} JWT issuer(s)`;
}
