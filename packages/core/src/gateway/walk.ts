import { GatewayError, ISSUER_OF_FORMAT, type Issuer, type Request as IRRequest } from '@tollgate/codecs/base';
import { decideAccess, defaultMaxTokens, type Principal } from '@tollgate/policy';
import { candidates as candidatesFor, pickWeighted, resolveEntry, resolveModel, type Candidate, type Model } from '../registry/index.js';
import type { KindEntry, WalkDeps } from './walk-deps.js';
import { maxWorstCase } from '../pricing/index.js';
import { admit, AdmissionRefused, quota, type Admission, type AdmissionInput } from './admission.js';
import { parseJsonBody, readBoundedBody } from './body.js';
import type { RequestContext } from './context.js';
import { dispatch } from './dispatch.js';
import { policyStage } from './policy-stage.js';
import type { GatewayReply, GatewayRequest } from './request.js';
import { listModelsFor } from './discovery-route.js';
import { BUDGET_PATH, budgetRoute } from './budget-route.js';
import { decisionHeaders } from './budget-headers.js';
import { completeReply, errorReply, guessFormat } from './render.js';
import { notOfferedError } from './not-offered.js';
import { respond } from './respond.js';
import { requestBounds, type RequestBounds } from './bounds.js';
import { holdsMedia } from './sizing.js';
import { earlyRefusal } from './early-check.js';
import { fallbackRefusal } from './fallbacks.js';
import { buildUpstreamCall, upstreamBody, type UpstreamTarget } from './upstream.js';
import { tokenAdjustments, writeRecord } from './finalize.js';
import { capabilityRefusal, ContextFit, PriceCeiling, RegionRouting, requestedRegions } from './route-constraints.js';

/** Refuse: record the reason, answer in the caller's format. */
function refuse(deps: WalkDeps, ctx: RequestContext, error: GatewayError, reason: string, headers: Record<string, string> = {}): GatewayReply {
  ctx.reject(error.status, reason, error.code === 'internal' ? 'error' : error.code === 'cancelled' ? 'cancelled' : 'rejected');
  writeRecord(ctx, deps.sink);
  return errorReply(deps.codecs, error, ctx.entryFormat, headers);
}

const DISCOVERY_PATHS = new Set(['/v1/models', '/v1beta/models', '/models']);

/** Path names by request URL: clients call the same few URLs over and over. One with a query (or a long one) is not kept. */
const pathnames = new Map<string, string>();

/** The path of a request URL as `URL` reads it (parsed once per distinct URL). */
function pathnameOf(href: string): string {
  let path = pathnames.get(href);
  if (path === undefined) {
    const url = new URL(href);
    path = url.pathname;
    if (url.search !== '' || url.hash !== '' || href.length > 512) return path;
    if (pathnames.size >= 256) pathnames.clear();
    pathnames.set(href, path);
  }
  return path;
}

/** The walk of one request (docs/architecture.md): each stage has one home, in this order. */
export async function walk(request: GatewayRequest, ctx: RequestContext, deps: WalkDeps): Promise<GatewayReply> {
  const path = pathnameOf(request.url);

  // 1. entry route
  if (request.method === 'GET' && DISCOVERY_PATHS.has(path)) return discovery(request, path, ctx, deps);
  if (request.method === 'GET' && path === BUDGET_PATH) return budgetRoute(request, ctx, deps);
  const entry = resolveEntry(deps.registry, request.method, path);
  if (entry === null) {
    ctx.entryFormat = guessFormat(request, path);
    return refuse(deps, ctx, new GatewayError('not_found', `No route for ${request.method} ${path}.`), 'route_not_found');
  }
  // Token counting and embeddings walk their own module (same stages, same order).
  if (entry.kind !== 'generate') {
    // Never reached: a gateway without `kinds` refuses a registry with such routes.
    if (deps.kinds === null) return refuse(deps, ctx, new GatewayError('unsupported_feature', `${entry.kind} is not served here.`), 'format_unsupported');
    return deps.kinds.walk(request, ctx, deps, entry as KindEntry);
  }
  const format = entry.format;
  ctx.entryFormat = format;
  const codec = deps.codecs[format];
  if (codec === undefined) {
    return refuse(deps, ctx, new GatewayError('unsupported_feature', `The wire format ${format} is not supported yet.`), 'format_unsupported');
  }

  // 2. authenticate
  const auth = await deps.identity.authenticate(request);
  if (!auth.ok) return refuse(deps, ctx, auth.error, auth.error.code === 'unavailable' ? 'identity_unavailable' : 'authentication_failed');
  const principal = auth.principal;
  ctx.principal = principal;

  // 3. parse, bounded. A large body is first checked against the rate limits and hard caps
  // that would refuse it whatever it holds, before it is read (declared size) or parsed.
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  let refusal = declared >= deps.earlyCheckBytes ? await earlyRefusal(deps, principal, format, entry.model) : null;
  if (refusal !== null) return refuse(deps, ctx, refusal.error, refusal.reason, refusal.headers);
  let raw: Uint8Array;
  let body: unknown;
  let ir: IRRequest;
  try {
    raw = await readBoundedBody(request, deps.maxRequestBytes);
    if (!(declared >= 0) && raw.byteLength >= deps.earlyCheckBytes && (refusal = await earlyRefusal(deps, principal, format, entry.model)) !== null) {
      return refuse(deps, ctx, refusal.error, refusal.reason, refusal.headers);
    }
    body = parseJsonBody(raw);
    const decodeOptions: { model?: string; stream?: boolean } = {};
    if (entry.model !== null) decodeOptions.model = entry.model;
    if (entry.stream) decodeOptions.stream = true;
    const decoded = codec.decodeRequest(body, decodeOptions);
    ctx.decodeWarnings = decoded.warnings;
    ir = decoded.request;
    ctx.unclassified = decoded.unclassified.length;
  } catch (error) {
    const e = GatewayError.from(error);
    return refuse(deps, ctx, e, e.code === 'request_too_large' ? 'request_too_large' : e.code === 'cancelled' ? 'client_cancelled' : 'invalid_request');
  }
  ctx.stream = ir.stream;
  ctx.includeUsage = ir.includeUsage === true;
  ctx.toolsDeclared = ir.tools.map((t) => t.name);
  const requested = ir.model ?? entry.model ?? undefined;
  ctx.requestedModel = requested ?? null;

  // 4. resolve model, 5. access: denied and unknown answer alike
  const model = requested === undefined ? null : resolveModel(deps.registry, requested);
  const notFound = () =>
    new GatewayError('model_not_found', `The model '${requested ?? ''}' does not exist or you do not have access to it.`, { param: 'model' });
  if (model === null || model.staged) return refuse(deps, ctx, notFound(), 'model_not_found');
  ctx.model = model.id;
  // An embedding model is reached through embed routes only.
  if (model.kind !== 'generate') return refuse(deps, ctx, notFound(), 'kind_not_offered');
  if (deps.policy !== null) {
    const access = decideAccess({ policy: deps.policy, registry: deps.registry, principal, model: model.id, now: deps.now() });
    for (const d of access.wouldDeny) if (!ctx.wouldBlock.includes(d.detail)) ctx.wouldBlock.push(d.detail);
    if (!access.allowed) return refuse(deps, ctx, notFound(), access.reason ?? 'access_denied');
    // Anthropic `fallbacks` names other models that may answer: each must be one the caller may use.
    const fallback = fallbackRefusal({ policy: deps.policy, registry: deps.registry, principal, now: deps.now(), ir, wouldBlock: ctx.wouldBlock });
    if (fallback !== null) {
      const e = new GatewayError('model_not_found', `The model '${fallback.name}' does not exist or you do not have access to it.`, { param: 'fallbacks' });
      return refuse(deps, ctx, e, fallback.reason);
    }
  }
  // 6. route: what the model can do, candidates by priority/plan/weight, sticky per conversation, healthy first
  const unfit = capabilityRefusal(model, ir, format, requested ?? model.id);
  if (unfit !== null) return refuse(deps, ctx, unfit.error, unfit.reason);
  const issuer = vendorScopedIssuer(ir);
  // Made on first need, always from the conversation as the client sent it (filters come later).
  const clientIr = ir;
  let sticky: string | undefined;
  const stickyFor = () => (sticky ??= stickyKey(principal, request, clientIr));
  // Stateful Responses features (previous_response_id, built-in tools, …) only a Responses
  // upstream can honour: other routes are not candidates, and none left is a clear refusal.
  const stateful = codec.statefulFeatures?.(ir) ?? [];
  const regions = new RegionRouting({
    policy: deps.policy,
    registry: deps.registry,
    principal,
    requested: requestedRegions(request.headers),
    model: model.id,
    name: requested ?? model.id,
    wouldBlock: ctx.wouldBlock,
  });
  const route = (m: Model): Candidate[] => {
    if (!m.entryFormats.includes(format)) return [];
    let found = candidatesFor(deps.registry, m, format).filter((c) => c.deployment.enabled && deps.codecs[c.upstreamFormat] !== undefined);
    found = regions.narrow(m, found);
    if (stateful.length > 0) found = found.filter((c) => c.upstreamFormat === format);
    if (issuer !== null) {
      const same = found.filter((c) => ISSUER_OF_FORMAT[c.upstreamFormat] === issuer);
      if (same.length > 0) found = same;
    }
    return found.length === 0 ? found : pickWeighted(found, stickyFor);
  };
  let list = route(model);
  const outside = list.length === 0 ? regions.refusal(model) : null;
  if (outside !== null) return refuse(deps, ctx, outside.error, outside.reason);
  if (list.length === 0 && stateful.length > 0) {
    const e = new GatewayError(
      'unsupported_feature',
      `The model '${requested ?? model.id}' cannot honour ${stateful.join(', ')}: these need an OpenAI Responses deployment, and this model has none. Send the full conversation instead.`,
    );
    return refuse(deps, ctx, e, 'stateful_unsupported');
  }
  if (list.length === 0) {
    // Access was granted above, so saying where the model is offered tells the caller nothing secret.
    if (!model.entryFormats.includes(format))
      return refuse(deps, ctx, notOfferedError(deps.registry, model, format, requested ?? model.id), 'format_not_offered');
    return refuse(deps, ctx, notFound(), 'no_route');
  }

  // 7. filters: tool allow lists, request filters, DLP, policy prompts
  const original = ir;
  const contentFor = (id: string) =>
    policyStage({
      policy: deps.policy,
      registry: deps.registry,
      filters: deps.filters,
      dlp: deps.dlp,
      content: deps.content,
      ctx,
      principal,
      model: id,
      format,
      ir: original,
    });
  const filtered = await contentFor(model.id);
  if (!filtered.ok) return refuse(deps, ctx, filtered.error, filtered.reason);
  ir = filtered.ir;
  // With DLP on, the client's bytes are never relayed: what leaves is encoded from what was scanned.
  let irChanged = ir !== original || filtered.reencode;
  // Context fit, on the prompt as it will be sent (policy prompts included).
  const fit = new ContextFit();
  const tooLong = fit.refusal(model, ir, format);
  if (tooLong !== null) return refuse(deps, ctx, tooLong.error, tooLong.reason);
  /** What the request costs where it was asked to go: `no_promote` allows nothing dearer (priced only then). */
  let asked: { first: Candidate; bounds: RequestBounds } | null = null;
  let ceiling: PriceCeiling | null = null;
  const within = (found: Candidate[], noPromote: boolean): Candidate[] => {
    if (!noPromote || asked === null) return found;
    return (ceiling ??= new PriceCeiling(asked.first, asked.bounds)).keep(found);
  };
  /** A budget-tier substitute must be able to take this request, as the requested model did. */
  const canServe = (id: string, spend: { noPromote: boolean }): boolean => {
    const m = resolveModel(deps.registry, id);
    if (m === null || m.staged || capabilityRefusal(m, ir, format, id) !== null || fit.refusal(m, ir, format) !== null) return false;
    return within(route(m), spend.noPromote).length > 0;
  };

  // 8. size the worst case, rate + spend, reserve
  const clientMaxTokens = ir.maxTokens;
  let maxTokensEdit: number | undefined;
  const admitFor = async (m: Model, candidates: Candidate[], substituted: boolean): Promise<Admission> => {
    if (clientMaxTokens === undefined) {
      // The client sent no output bound: set one upstream, so the worst case is a true bound.
      const fallback = deps.policy === null ? m.capabilities.max_output_tokens : defaultMaxTokens(deps.policy, m.capabilities.max_output_tokens);
      maxTokensEdit = fallback ?? 4096;
      ir = { ...ir, maxTokens: maxTokensEdit };
    }
    const bounds = requestBounds(ir, codec, m, raw.byteLength, deps.sizing);
    ctx.promptBound = bounds.promptTokens;
    ctx.outputBound = bounds.outputTokens;
    ctx.costBounded = bounds.unbounded.length === 0;
    ctx.promptBoundFirm = !holdsMedia(ir);
    ctx.contextWindow = m.capabilities.context_window ?? null;
    if (!substituted) asked = { first: candidates[0]!, bounds };
    const input: AdmissionInput = {
      ctx,
      policy: deps.policy,
      registry: deps.registry,
      store: deps.store,
      principal,
      model: m.id,
      now: deps.now(),
      worstCaseMicros: maxWorstCase(candidates, bounds),
      tokenBound: bounds.promptTokens + bounds.outputTokens,
      unbounded: bounds.unbounded,
      reservationTtlMs: deps.reservationTtlMs,
      substituted,
      canSubstitute: canServe,
    };
    if (deps.notify !== undefined) input.notify = deps.notify;
    if (deps.tenantOf !== undefined) input.tenantOf = deps.tenantOf;
    return admit(input);
  };
  let admission: Admission;
  let servedModel: Model = model;
  try {
    admission = await admitFor(model, list, false);
    ctx.noPromote = admission.spend?.noPromote === true;
    if (admission.substitute !== undefined) {
      // Budget-tier substitution narrows only: the substitute passed access in policy; it must
      // also be served for this entry format, else the request is refused like the cap.
      const sub = resolveModel(deps.registry, admission.substitute.to);
      const subList = sub === null || sub.staged ? [] : within(route(sub), ctx.noPromote);
      // Refused after the first admission counted the request: its worst-case tokens go back
      // (it still counts against requests per minute), as admission's own refusals do.
      const refuseAdmitted = async (error: GatewayError, reason: string, headers?: Record<string, string>) => {
        if (ctx.tokenBuckets.length > 0) {
          await deps.holds.release(ctx.id, tokenAdjustments(ctx, 0));
          ctx.tokenBuckets = [];
        }
        return refuse(deps, ctx, error, reason, headers);
      };
      if (sub === null || subList.length === 0) {
        const refused = quota(`spend_limit:${admission.substitute.ruleId}`, admission.spend);
        return refuseAdmitted(refused.error, refused.reason, refused.headers);
      }
      ctx.substitutedFrom = model.id;
      ctx.model = sub.id;
      servedModel = sub;
      regions.report(sub.id);
      list = subList;
      // The model that serves is the one whose content rules apply: its tool allow lists and
      // prompts (and the filters told its name), run again on the request as the client sent it.
      ctx.answerGuard = null;
      ctx.errorDlp = null;
      ctx.policyPrompts = [];
      const again = await contentFor(sub.id);
      if (!again.ok) return refuseAdmitted(again.error, again.reason);
      ir = again.ir;
      irChanged = ir !== original || again.reencode;
      const subTooLong = fit.refusal(sub, ir, format);
      if (subTooLong !== null) return refuseAdmitted(subTooLong.error, subTooLong.reason);
      admission = await admitFor(sub, subList, true);
      if (admission.spend?.noPromote === true) ctx.noPromote = true;
    }
  } catch (error) {
    if (error instanceof AdmissionRefused) return refuse(deps, ctx, error.error, error.reason, error.headers);
    throw error;
  }
  ctx.reservedMicros = admission.reserved;
  if (admission.held) deps.holds.track(ctx.id);
  list = within(list, ctx.noPromote);

  // 9. convert and dispatch, failing over before anything is committed
  const targets = list.map(toTarget);
  // The client's signal aborts the upstream call itself (no second controller per request).
  // Who cancelled a stream is told by that signal when the stream's outcome is seen (its
  // terminal event, its first error, its end: `noteClientAbort`), not by a listener per request.
  const clientSignal = request.signal;
  if (clientSignal.aborted) ctx.noteClientAbort(clientSignal);
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const result = await dispatch({
    targets,
    build: async (target) => {
      const encoded = upstreamBody({
        codecs: deps.codecs,
        target,
        raw,
        parsed,
        ir,
        entryFormat: format,
        irChanged,
        edits:
          maxTokensEdit === undefined
            ? { model: target.upstreamModel, includeUsage: ir.stream && !ctx.includeUsage }
            : { model: target.upstreamModel, maxTokens: maxTokensEdit, includeUsage: ir.stream && !ctx.includeUsage },
        cacheShaping: deps.cacheShaping,
        report: ctx,
      });
      return buildUpstreamCall(target, encoded, ir.stream, request.headers, deps.secrets, clientSignal);
    },
    fetch: deps.fetch,
    breakers: deps.breakers,
    failover: deps.failover,
    clientSignal,
    observer: ctx.observer,
  }).catch((error: unknown) => error as Error);

  if (!(result instanceof Error)) {
    const candidate = list.find((c) => c.deployment.id === result.target.deploymentId)!;
    ctx.attempts = result.attempts;
    ctx.deployment = candidate.deployment.id;
    ctx.region = candidate.deployment.region;
    ctx.provider = candidate.provider.id;
    ctx.upstreamModel = candidate.deployment.upstreamModel;
    ctx.upstreamFormat = candidate.upstreamFormat;
    const clientModel = ctx.substitutedFrom === null ? (requested ?? model.id) : servedModel.id;
    return respond({ deps, ctx, candidate, target: result.target, response: result.response, admission, clientModel, clientSignal });
  }
  await deps.holds.release(ctx.id, tokenAdjustments(ctx, 0));
  const e = GatewayError.from(result);
  ctx.attempts = Math.max(ctx.attempts, 1);
  if (e.code === 'cancelled') {
    ctx.reject(499, 'client_cancelled', 'cancelled');
    writeRecord(ctx, deps.sink);
    return errorReply(deps.codecs, e, format, decisionHeaders(admission.spend));
  }
  ctx.reject(e.status, e.code === 'upstream_timeout' ? 'upstream_timeout' : `upstream:${e.code}`, 'upstream_error');
  writeRecord(ctx, deps.sink);
  return errorReply(deps.codecs, e, format, decisionHeaders(admission.spend));
}

function toTarget(c: Candidate): UpstreamTarget {
  const t: UpstreamTarget = {
    deploymentId: c.deployment.id,
    providerId: c.provider.id,
    baseUrl: c.provider.baseUrl,
    path: c.path,
    streamPath: c.streamPath,
    upstreamFormat: c.upstreamFormat,
    upstreamModel: c.deployment.upstreamModel,
    plan: c.plan,
    credential: c.credential,
    headers: c.provider.headers,
  };
  return t;
}

/** The issuer of vendor-scoped state the request carries (signatures, encrypted reasoning), if any. */
function vendorScopedIssuer(ir: IRRequest): Issuer | null {
  for (const m of ir.messages) {
    if (m.role !== 'assistant') continue;
    for (const p of m.content) {
      if (p.type === 'reasoning' && p.issuer !== undefined && (p.signature !== undefined || p.redactedData !== undefined || p.encryptedContent !== undefined))
        return p.issuer;
      if (p.type === 'tool_call' && p.thoughtSignature !== undefined) return 'google';
    }
  }
  return null;
}

/** Sticky per conversation: principal plus a session key, else the conversation's first turn. */
function stickyKey(principal: Principal, request: GatewayRequest, ir: IRRequest): string {
  const session = request.headers.get('x-tollgate-session') ?? request.headers.get('x-session-id');
  if (session !== null) return `${principal.id}\u0000${session}`;
  const first = ir.messages[0];
  let text = '';
  if (first !== undefined) for (const p of first.content) if (p.type === 'text') text += p.text;
  return `${principal.id}\u0000${ir.system
    .map((s) => s.text)
    .join('\n')
    .slice(0, 512)}\u0000${text.slice(0, 512)}`;
}

async function discovery(request: GatewayRequest, path: string, ctx: RequestContext, deps: WalkDeps): Promise<GatewayReply> {
  const kind = path.startsWith('/v1beta') ? 'gemini' : request.headers.has('anthropic-version') ? 'anthropic' : 'openai';
  ctx.entryFormat = kind === 'gemini' ? 'gemini_generate_content' : kind === 'anthropic' ? 'anthropic_messages' : 'openai_chat';
  const auth = await deps.identity.authenticate(request);
  ctx.observer?.unrecorded(auth.ok ? 200 : auth.error.status);
  if (!auth.ok) return errorReply(deps.codecs, auth.error, ctx.entryFormat);
  const body = listModelsFor(deps, auth.principal, kind, requestedRegions(request.headers));
  return completeReply(200, JSON.stringify(body), { 'content-type': 'application/json', 'x-tollgate-request-id': ctx.id });
}
