/**
 * The service config of `tollgate serve` (reference: docs/service-config.md): a strict zod
 * schema, unknown keys rejected, every violation reported. Relative paths resolve against the
 * config file's folder. The JSON Schema in `packages/adapters-node/schema/` is generated from it.
 */
import * as z from 'zod';
import { IdentityConfigSchema } from '@tollgate/core';
import { didYouMean } from '@tollgate/policy';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;
export const DEFAULT_DRAIN_TIMEOUT_S = 30;
/** The upstream transport's time bounds (seconds). */
export const DEFAULT_UPSTREAM = { connect_timeout_s: 10, headers_timeout_s: 300, idle_timeout_s: 300, attempt_timeout_s: 3600 } as const;

const seconds = (max: number) => z.number('a number of seconds').positive('more than 0 seconds').max(max, `at most ${max} seconds`);

/** How `serve` calls upstreams (reference: docs/transport.md). */
const UpstreamConfig = z
  .strictObject({
    connect_timeout_s: seconds(600)
      .default(DEFAULT_UPSTREAM.connect_timeout_s)
      .describe('Opening a connection to an upstream (TCP, a proxy tunnel, TLS) may take this long (default 10).'),
    headers_timeout_s: seconds(86_400)
      .default(DEFAULT_UPSTREAM.headers_timeout_s)
      .describe(
        'The final response head must arrive this long after an attempt began; interim 1xx heads and a slow head do not extend it (default 300). A timeout fails over, and answers 504 when nothing is left.',
      ),
    idle_timeout_s: seconds(86_400)
      .default(DEFAULT_UPSTREAM.idle_timeout_s)
      .describe('An upstream silent this long mid-body, and a client that reads nothing of its answer this long, are cut (default 300).'),
    attempt_timeout_s: seconds(7 * 86_400)
      .default(DEFAULT_UPSTREAM.attempt_timeout_s)
      .describe("One upstream attempt, from its start to the answer's last byte, may take this long (default 3600)."),
    max_connections_per_origin: z
      .number()
      .int('a whole number')
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('At most this many connections per upstream origin; calls beyond wait for one (default unlimited).'),
    http2: z.boolean().default(false).describe('Speak HTTP/2 to https upstreams that offer it (default false).'),
    ca_file: z
      .string()
      .min(1)
      .optional()
      .describe("PEM file of the certificate authorities trusted for https upstreams instead of Node's (relative to this file)."),
  })
  .describe('How serve calls upstreams: time bounds, connection limits, HTTP/2, a private CA. Proxies come from HTTPS_PROXY, HTTP_PROXY and NO_PROXY.');

const RedisUrl = z
  .string()
  .regex(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL')
  .describe('A Redis URL: redis://[user:password@]host:port[/db], or rediss:// for TLS.');

const StoreObject = z
  .strictObject({
    url: RedisUrl,
    key_prefix: z.string().min(1).max(64).optional().describe('Prefix of every Redis key (default "tg:"); replicas sharing budgets use the same one.'),
    reservation_ttl_s: z
      .number()
      .int('whole seconds')
      .min(5)
      .max(86_400)
      .optional()
      .describe('How long a hold lives without renewal (default 300); streams renew theirs, holds of a crashed replica expire after it.'),
  })
  .describe('Redis with options.');

const STORE_MESSAGE = 'store is "memory", a redis:// URL, or { url, key_prefix, reservation_ttl_s }';
/** `store` as a string: a word that is not a URL was probably meant to be "memory". */
const StoreUrl = z.string().regex(/^rediss?:\/\/\S+$/, {
  error: (issue) =>
    typeof issue.input === 'string' && !issue.input.includes('://') ? `${STORE_MESSAGE}${didYouMean(issue.input, ['memory'])}` : 'a redis:// or rediss:// URL',
});
const Store = z
  .union([z.literal('memory'), StoreUrl, StoreObject], { error: () => STORE_MESSAGE })
  .describe('Where counters, holds and rate buckets live: "memory" (one process) or Redis (shared by replicas).');

const USAGE_WORDS = ['stdout', 'none'];
const Usage = z
  .union([z.enum(['stdout', 'none']), z.string().regex(/^file:.+/), z.string().regex(/^postgres(ql)?:\/\/\S+$/)], {
    error: (issue) =>
      `usage is "stdout", "file:<path>", a postgres:// URL, or "none"${typeof issue.input === 'string' ? didYouMean(issue.input, USAGE_WORDS) : ''}`,
  })
  .describe('Where usage records go: "stdout" (JSON lines), "file:<path>" (JSON lines appended), a postgres:// URL (table tollgate_usage), or "none".');

const HttpUrl = z.string().regex(/^https?:\/\/\S+$/, 'an http:// or https:// URL');

/** `telemetry`: where metrics and traces go. At least one exporter; absent means off. */
const Telemetry = z
  .strictObject({
    prometheus: z
      .strictObject({
        host: z.string().min(1).default('127.0.0.1').describe('Address of the metrics listener (default 127.0.0.1).'),
        port: z.number().int('a whole number').min(0).max(65_535).default(9464).describe('Port of the metrics listener (default 9464).'),
      })
      .optional()
      .describe('Prometheus text on GET /metrics, on a listener of its own.'),
    otlp: z
      .strictObject({
        endpoint: HttpUrl.optional().describe("The collector's base URL, e.g. http://collector:4318 (/v1/traces and /v1/metrics are appended)."),
        protocol: z
          .enum(['http/protobuf', 'http/json'], 'protocol is "http/protobuf" or "http/json" (gRPC is not supported: use port 4318)')
          .optional()
          .describe('http/protobuf or http/json.'),
        headers: z.record(z.string().min(1), z.string()).optional().describe('Headers sent to the collector (e.g. an API key).'),
      })
      .optional()
      .describe('OTLP export of traces and metrics (endpoint, headers and protocol may also come from OTEL_EXPORTER_OTLP_*).'),
    service_name: z.string().min(1).max(256).optional().describe('service.name of the resource (default tollgate; OTEL_SERVICE_NAME overrides it).'),
  })
  .refine((t) => t.prometheus !== undefined || t.otlp !== undefined, 'telemetry needs prometheus and/or otlp (remove the section to turn telemetry off)')
  .describe('Where metrics and traces go; absent means off. Reference: docs/observability.md.');

/** `notify`: where spend notifications (policy `notify` actions) are delivered. */
const Notify = z
  .strictObject({
    webhook: HttpUrl.describe('POST one JSON notification here per crossing per window (once across replicas sharing a store), retried with backoff.'),
  })
  .describe('Delivery of spend notifications (policy notify actions). Without it they are only counted in the log.');

/** The shortest surrogate secret `serve` accepts (characters): an HMAC key with at least 256 bits of material. */
export const MIN_SURROGATE_SECRET = 32;

/** `dlp`: what the policy's DLP needs from the service, beside the policy file. */
const Dlp = z
  .strictObject({
    surrogate_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable (letters, digits, _)')
      .describe(
        `The environment variable holding the secret pseudonymize surrogates are derived from (HMAC-SHA256, at least ${MIN_SURROGATE_SECRET} characters). Workers and replicas given the same secret make the same surrogate for a value. Without it each worker makes a random key at start.`,
      ),
  })
  .describe('DLP settings of the service (the policy file says what to detect and do). Reference: docs/dlp-tools-prompts.md.');

const Log = z
  .strictObject({
    access: z
      .enum(['stdout', 'off'], 'access is "stdout" or "off"')
      .default('off')
      .describe('One JSON line per answered request (no prompt text, no query string), or off.'),
  })
  .describe('Logs besides the start-up and error lines.');

export const ServiceConfigSchema = z
  .strictObject({
    listen: z
      .strictObject({
        host: z.string().min(1).default(DEFAULT_HOST).describe('Address to bind (default 127.0.0.1; 0.0.0.0 for every interface).'),
        port: z.number().int('a whole number').min(0).max(65_535).default(DEFAULT_PORT).describe('TCP port (default 8787; 0 picks a free one).'),
      })
      .default({ host: DEFAULT_HOST, port: DEFAULT_PORT }),
    registry: z
      .string('the path of the registry file (YAML or JSON)')
      .min(1, 'the path of the registry file (YAML or JSON)')
      .describe('The registry file (YAML or JSON), relative to this file.'),
    policy: z.string().min(1).optional().describe('The policy file, relative to this file. Without one, every model is allowed and nothing is capped.'),
    identity: z
      .optional(IdentityConfigSchema)
      .describe('Who may call: virtual keys, JWT issuers and application keys. Without it every request is refused (401).'),
    store: Store.default('memory'),
    usage: Usage.default('stdout'),
    secrets: z
      .literal('env', 'only "env" is supported: provider secrets are read from the environment by name')
      .default('env')
      .describe('Where provider secrets named in the registry come from: the environment.'),
    max_request_bytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .default(DEFAULT_MAX_REQUEST_BYTES)
      .describe('Larger request bodies are refused with 413 (default 33554432, 32 MiB).'),
    drain_timeout_s: z
      .number()
      .min(0)
      .max(3600)
      .default(DEFAULT_DRAIN_TIMEOUT_S)
      .describe('On SIGTERM, how long open requests may finish before they are cut (default 30).'),
    telemetry: Telemetry.optional(),
    notify: Notify.optional(),
    log: Log.default({ access: 'off' }),
    dlp: Dlp.optional(),
    upstream: UpstreamConfig.default({ ...DEFAULT_UPSTREAM, http2: false }),
  })
  .describe("The service config of `tollgate serve`. Relative paths resolve against this file's folder.");

/** The service config as written. */
export type ServiceConfigInput = z.input<typeof ServiceConfigSchema>;
/** The service config with defaults filled in. */
export type ServiceConfig = z.output<typeof ServiceConfigSchema>;

/**
 * The secret DLP surrogates are derived from, read from the environment variable
 * `dlp.surrogate_key_env` names; undefined when the config names none (each gateway then makes
 * a random key). Throws when the variable is named but unset or shorter than
 * `MIN_SURROGATE_SECRET`: surrogates would otherwise differ between workers and restarts
 * without anyone being told.
 */
export function surrogateSecret(config: Pick<ServiceConfig, 'dlp'>, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const name = config.dlp?.surrogate_key_env;
  if (name === undefined) return undefined;
  const value = env[name] ?? '';
  if (value === '') throw new Error(`dlp.surrogate_key_env names ${name}, which is not set in the environment`);
  if (value.length < MIN_SURROGATE_SECRET) {
    throw new Error(`dlp.surrogate_key_env: ${name} holds ${value.length} characters; the surrogate secret needs at least ${MIN_SURROGATE_SECRET}`);
  }
  return value;
}

/** What a config's identity section holds, for log lines: `2 keys, 1 JWT issuer(s)`. */
export function identitySummary(identity: ServiceConfig['identity']): string {
  const keys = (identity?.virtual_keys?.length ?? 0) + (identity?.applications?.length ?? 0);
  return `${keys} key${keys === 1 ? '' : 's'}, ${identity?.jwt?.length ?? 0} JWT issuer(s)`;
}
