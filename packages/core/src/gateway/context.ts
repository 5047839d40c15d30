import type { ConversionWarning, Request as IRRequest, Usage, WireFormat } from '@tollgate/codecs/base';
import type { Principal, RateConstraint, SpendDecision } from '@tollgate/policy';
import type { AnswerDlp, AnswerGuard } from './answer-guard.js';
import { isoTime } from '../util/iso-time.js';
import type { RequestTiming } from './timing.js';
import type { CostMicros, RecordDecision, RecordDlp, RecordStatus, UsageRecord } from './usage-record.js';

/** Everything the gateway learns about one request as it walks the stages; becomes the usage record. */
export class RequestContext {
  readonly id: string;
  readonly startedAt: number;
  principal: Principal | null = null;
  entryFormat: WireFormat | null = null;
  upstreamFormat: WireFormat | null = null;
  requestedModel: string | null = null;
  model: string | null = null;
  substitutedFrom: string | null = null;
  deployment: string | null = null;
  /** The region of the deployment that answered. */
  region: string | null = null;
  /** A spend rule's `no_promote` was active: nothing dearer than the model asked for was tried. */
  noPromote = false;
  provider: string | null = null;
  upstreamModel: string | null = null;
  stream = false;
  /** The client asked for usage in the stream (OpenAI include_usage). */
  includeUsage = false;
  ir: IRRequest | null = null;
  usage: Usage | null = null;
  cost: CostMicros | null = null;
  reservedMicros = 0;
  status: RecordStatus = 'ok';
  reason: string | null = null;
  httpStatus = 200;
  wouldBlock: string[] = [];
  ttfbMs: number | null = null;
  attempts = 0;
  unclassified = 0;
  toolsDeclared: string[] = [];
  readonly toolsInvoked = new Set<string>();
  /** Output relayed, counted locally: the estimate when usage never arrives. */
  outputDeltas = 0;
  /** The stream reached its terminal event; `streamError` holds the code of an in-stream error. */
  streamCompleted = false;
  streamError: string | null = null;
  /** The client went away (aborted the request or cancelled the body). */
  clientCancelled = false;
  outputBytes = 0;
  /** The prompt bound admission priced: what the upstream can bill as prompt at most (when `costBounded`). */
  promptBound = 0;
  /**
   * Admission's bounds hold for this request (no field made its cost unbounded): usage an
   * upstream reports beyond them cannot be true, and is held to them when settled.
   */
  costBounded = false;
  /**
   * The prompt bound is a true bound, not a per-item allowance: the prompt holds no image or file
   * (sized at `sizing.imageTokens` / `fileTokens`, which a long video passes). Set by admission.
   */
  promptBoundFirm = false;
  /** The model's context window, when the registry names one: no prompt is billed beyond it. */
  contextWindow: number | null = null;
  /** The output bound admission priced (all choices, thinking included): what the upstream can bill as output at most. */
  outputBound = Number.POSITIVE_INFINITY;
  /** What the request does: generate (the default), count_tokens or embed. */
  kind: 'generate' | 'count_tokens' | 'embed' = 'generate';
  /** What decoding the client's request could not carry into the canonical form. */
  decodeWarnings: ConversionWarning[] = [];
  /**
   * What the translation dropped or changed (request and answer), for the
   * `x-tollgate-warnings` header and the record; empty on identity and raw plans.
   */
  warnings: ConversionWarning[] = [];
  /** Opaque values in a translated stream the client's format cannot carry (dropped mid-stream). */
  streamDrops = 0;
  /** For count_tokens: the input tokens counted (the answer). */
  countedTokens: number | null = null;
  /** The `{tenant}:` tag every store key of this request's principal carries ('' for none). */
  keyTag = '';
  /** Token buckets admission took (the worst case), to move to the tokens used at settle. */
  tokenBuckets: Array<{ key: string; windowMs: number; start: number; amount: number }> = [];
  /**
   * Shadow rate buckets (by key) this request already counted against, when the policy has
   * any: a budget-tier substitute's admission counts only those the requested model's did not
   * (enforced ones are told by `admittedRate`).
   */
  shadowRateKeys: string[] | null = null;
  /** DLP counts on the request and on the answer, by entity (never values). */
  dlp: RecordDlp = {};
  dlpResponse: RecordDlp = {};
  /** Policy prompts put before the client's system prompt, as `id@version`. */
  policyPrompts: string[] = [];
  /** How the answer is guarded (tool calls, DLP), or null. */
  answerGuard: AnswerGuard | null = null;
  /**
   * The answer side of the request's DLP, for an upstream error's message: set whenever DLP ran
   * on the request, also where the answer itself is not guarded (a token count, embeddings).
   */
  errorDlp: AnswerDlp | null = null;
  /** Set when the output guard withheld the answer: the record's reason. */
  guardReason: string | null = null;
  /** Where work that need not delay the answer goes (`reply`'s `defer`), or null: do it first. */
  defer: ((work: () => Promise<void>) => void) | null = null;
  /** Timings and telemetry of this request (spans, metrics, `server-timing`). */
  observer: RequestTiming | null = null;
  /** What admission decided over: the record's `decision`, for `tollgate explain` and `what-if`. */
  private admitted: { worstCaseMicros: number; tokenBound: number; rate: readonly RateConstraint[]; spend: SpendDecision | null; at: number } | null = null;
  private recorded = false;

  constructor(
    private readonly now: () => number,
    readonly registryRevision: string,
    readonly policyRevision: string | null,
  ) {
    this.id = `req_${crypto.randomUUID().replace(/-/g, '')}`;
    this.startedAt = now();
  }

  elapsed(): number {
    return Math.max(0, Math.round(this.now() - this.startedAt));
  }

  markFirstByte(): void {
    if (this.ttfbMs === null) this.ttfbMs = this.elapsed();
  }

  /** Admission sized the request and took these rate limits at `at` (called again after a substitution). */
  noteAdmission(worstCaseMicros: number, tokenBound: number, rate: readonly RateConstraint[], at: number): void {
    this.admitted = { worstCaseMicros, tokenBound, rate, spend: null, at };
  }

  /** The worst-case cost the last admission sized the request at (0 before one). */
  get admittedWorstCase(): number {
    return this.admitted?.worstCaseMicros ?? 0;
  }

  /** The rate limits the last admission counted the request against (none before one). */
  get admittedRate(): readonly RateConstraint[] {
    return this.admitted?.rate ?? [];
  }

  /**
   * The instant whose windows the request's cost is charged to: its (last) admission's, whose
   * caps hold its reservation; the start when it was never admitted. A body read across
   * midnight is admitted against the new day's caps, so it must be charged to the new day.
   */
  get chargedAt(): number {
    return this.admitted?.at ?? this.startedAt;
  }

  /** The spend decision admission made (the last one, with markers). */
  noteSpend(spend: SpendDecision): void {
    if (this.admitted !== null) this.admitted.spend = spend;
  }

  private decision(): RecordDecision | null {
    const a = this.admitted;
    if (a === null) return null;
    const s = a.spend;
    return {
      at_ms: Math.max(0, a.at - this.startedAt),
      worst_case_micros: a.worstCaseMicros,
      token_bound: a.tokenBound,
      spend: (s?.utilization ?? []).map((u) => ({
        rule: u.ruleId,
        action: u.action,
        per: u.per,
        pool: u.pool,
        scope: u.scope,
        window: u.window,
        window_key: u.windowKey,
        used_micros: u.usedMicros,
        limit_micros: u.limitMicros,
        enforced: u.enforced,
      })),
      limiting:
        s?.limiting === undefined
          ? null
          : {
              rule: s.limiting.ruleId,
              reason: s.limiting.reason,
              per: s.limiting.per,
              pool: s.limiting.pool,
              scope: s.limiting.scope,
              window: s.limiting.window,
              window_key: s.limiting.windowKey,
              used_micros: s.limiting.usedMicros,
              limit_micros: s.limiting.limitMicros,
            },
      rate: a.rate.map((r) => ({ rule: r.ruleId, kind: r.kind, limit: r.limit, window_ms: r.windowMs, amount: r.amount ?? 1 })),
      no_promote: this.noPromote,
    };
  }

  /**
   * A client's abort (its `signal`) cancelled the stream when it came before the stream's
   * terminal event and first error: called as either arrives, and at the stream's end, it
   * notes a cancel once the signal is aborted. An abort after an upstream in-stream error is
   * the client reacting to it, not a cancel.
   */
  noteClientAbort(signal: AbortSignal | null): void {
    if (signal !== null && signal.aborted && this.streamError === null && !this.streamCompleted) this.clientCancelled = true;
  }

  reject(status: number, reason: string, recordStatus: RecordStatus = 'rejected'): void {
    this.status = recordStatus;
    this.httpStatus = status;
    this.reason = reason;
  }

  /** Build the record once; later calls return null so a request is never recorded twice. */
  takeRecord(): UsageRecord | null {
    if (this.recorded) return null;
    this.recorded = true;
    const p = this.principal;
    const u = this.usage;
    return {
      schema: 1,
      request_id: this.id,
      ts: isoTime(this.startedAt),
      principal:
        p === null
          ? null
          : {
              kind: p.kind,
              id: p.id,
              issuer: p.issuer ?? null,
              leaders: p.leaders === undefined ? [] : [...p.leaders],
              tier: p.tier ?? null,
              team: p.team ?? null,
              bu: p.bu ?? null,
              application: p.application ?? null,
              platform: p.platform ?? null,
              workflow: p.workflow ?? null,
              tags: p.tags === undefined ? {} : { ...p.tags },
            },
      entry_format: this.entryFormat,
      upstream_format: this.upstreamFormat,
      requested_model: this.requestedModel,
      model: this.model,
      substituted_from: this.substitutedFrom,
      deployment: this.deployment,
      region: this.region,
      provider: this.provider,
      upstream_model: this.upstreamModel,
      stream: this.stream,
      usage:
        u === null
          ? null
          : {
              input: u.input,
              output: u.output,
              cache_read: u.cacheRead,
              cache_write: u.cacheWrite,
              cache_write_1h: u.cacheWrite1h,
              reasoning: u.reasoning,
              measured: u.measured,
            },
      cost_micros: this.cost,
      reserved_micros: this.reservedMicros,
      status: this.status,
      reason: this.reason,
      http_status: this.httpStatus,
      would_block: this.wouldBlock,
      decision: this.decision(),
      ttfb_ms: this.ttfbMs,
      duration_ms: this.elapsed(),
      attempts: this.attempts,
      unclassified_fields: this.unclassified,
      tools_declared: this.toolsDeclared,
      tools_invoked: [...this.toolsInvoked],
      dlp: this.dlp,
      dlp_response: this.dlpResponse,
      policy_prompts: this.policyPrompts,
      registry_revision: this.registryRevision,
      policy_revision: this.policyRevision,
      kind: this.kind,
      counted_tokens: this.countedTokens,
      translation_warnings: this.warnings.length + this.streamDrops,
    };
  }
}

/** Warnings that are drops or changes (an unclassified field is counted on its own). */
export function lossyWarnings(warnings: readonly ConversionWarning[]): ConversionWarning[] {
  return warnings.filter((w) => w.code !== 'unclassified_field');
}

const MAX_WARNINGS_HEADER = 1024;

/**
 * `x-tollgate-warnings`: how many things the translation dropped or changed, then what (code and
 * path), cut at 1 KiB. Absent when nothing was.
 */
export function warningsHeader(warnings: readonly ConversionWarning[]): string | undefined {
  if (warnings.length === 0) return undefined;
  let out = `${warnings.length}`;
  for (const [i, w] of warnings.entries()) {
    const item = `${i === 0 ? '; ' : ', '}${w.code}${w.path === undefined ? '' : ` ${w.path}`}`.replace(/[^\x20-\x7e]/g, '?');
    if (out.length + item.length > MAX_WARNINGS_HEADER) return `${out}, ...`;
    out += item;
  }
  return out;
}
