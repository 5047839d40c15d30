/**
 * The walk of a request that does not generate: token counting (`count_tokens`) and embeddings
 * (`embed`). Same stages, same order as `walk` — entry route, authentication, bounded parse,
 * model, access, route, rate and spend admission, dispatch with the brokered credential, one
 * record — with what differs:
 *
 * - count_tokens: the deployment's own count operation, translated both ways; else a local count
 *   with the model's declared tokenizer; else 404 `count_tokens_unsupported`. Free (cost 0, no
 *   spend reserved) but rate-limited like any request (one request, no tokens).
 * - embed: priced per input token, the worst case (every input at its UTF-8 byte length)
 *   reserved against caps; usage from the upstream, else that bound, marked unmeasured.
 */
import {
  GatewayError,
  isTimeoutError,
  type CountTokensCodec,
  type EmbedRequest,
  type EmbeddingsCodec,
  type Request as IRRequest,
  type WireFormat,
} from '@tollgate/codecs/base';
import { countTokensCodecs, embeddingsCodecs } from '@tollgate/codecs/kinds';
import { decideAccess, type Principal } from '@tollgate/policy';
import { maxWorstCase } from '../pricing/index.js';
import { candidates as candidatesFor, countCandidates, pickWeighted, resolveModel, type Candidate, type Model } from '../registry/index.js';
import { admit, AdmissionRefused, type Admission } from './admission.js';
import { parseJsonBody, readBoundedBody } from './body.js';
import type { RequestContext } from './context.js';
import { decisionHeaders } from './budget-headers.js';
import { dispatch } from './dispatch.js';
import { earlyRefusal } from './early-check.js';
import { PriceCeiling, RegionRouting, requestedRegions } from './route-constraints.js';
import { countPolicy, embedPolicy } from './kind-policy.js';
import { settleUsage, tokenAdjustments, writeRecord } from './finalize.js';
import { completeReply, errorReply } from './render.js';
import type { GatewayReply, GatewayRequest } from './request.js';
import { guardErrorMessage, readBody, readText, upstreamErrorForClient } from './respond.js';
import { utf8Length } from './sizing.js';
import { countLocally } from './token-counters.js';
import { buildUpstreamCall, type UpstreamTarget } from './upstream.js';
import type { KindEntry, OperationKinds, WalkDeps } from './walk-deps.js';

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_BYTES = 1024 * 1024;
/** Per embedding input: separators and framing the vendor adds. */
const PER_INPUT_TOKENS = 8;

export type { KindEntry, OperationKinds } from './walk-deps.js';

function refuse(deps: WalkDeps, ctx: RequestContext, error: GatewayError, reason: string, headers: Record<string, string> = {}): GatewayReply {
  ctx.reject(error.status, reason, error.code === 'internal' ? 'error' : error.code === 'cancelled' ? 'cancelled' : 'rejected');
  writeRecord(ctx, deps.sink);
  return errorReply(deps.codecs, error, ctx.entryFormat, headers);
}

function toTarget(c: Candidate): UpstreamTarget {
  return {
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
}

/** The request's decoded form, whichever kind. */
type Decoded = { kind: 'count_tokens'; request: IRRequest } | { kind: 'embed'; request: EmbedRequest };

export async function walkKind(request: GatewayRequest, ctx: RequestContext, deps: WalkDeps, entry: KindEntry): Promise<GatewayReply> {
  const format = entry.format;
  ctx.entryFormat = format;
  ctx.kind = entry.kind;
  if (ctx.observer !== null) ctx.observer.kind = entry.kind;
  const kindCodec = entry.kind === 'count_tokens' ? countTokensCodecs[format] : embeddingsCodecs[format];
  if (deps.codecs[format] === undefined || kindCodec === undefined) {
    return refuse(deps, ctx, new GatewayError('unsupported_feature', `The wire format ${format} has no ${entry.kind} endpoint here.`), 'format_unsupported');
  }

  // 2. authenticate
  const auth = await deps.identity.authenticate(request);
  if (!auth.ok) return refuse(deps, ctx, auth.error, auth.error.code === 'unavailable' ? 'identity_unavailable' : 'authentication_failed');
  const principal = auth.principal;
  ctx.principal = principal;

  // 3. parse, bounded; a large body first meets the refusals its content cannot change
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  let refusal = declared >= deps.earlyCheckBytes ? await earlyRefusal(deps, principal, format, entry.model) : null;
  if (refusal !== null) return refuse(deps, ctx, refusal.error, refusal.reason, refusal.headers);
  let decoded: Decoded;
  try {
    const raw = await readBoundedBody(request, deps.maxRequestBytes);
    if (!(declared >= 0) && raw.byteLength >= deps.earlyCheckBytes && (refusal = await earlyRefusal(deps, principal, format, entry.model)) !== null) {
      return refuse(deps, ctx, refusal.error, refusal.reason, refusal.headers);
    }
    const body = parseJsonBody(raw);
    const options = entry.model === null ? {} : { model: entry.model };
    if (entry.kind === 'count_tokens') {
      const d = (kindCodec as CountTokensCodec).decodeRequest(body, options);
      decoded = { kind: 'count_tokens', request: d.request };
      ctx.unclassified = d.unclassified.length;
    } else {
      const d = (kindCodec as EmbeddingsCodec).decodeRequest(body, options);
      decoded = { kind: 'embed', request: d.request };
      ctx.unclassified = d.unclassified.length;
    }
  } catch (error) {
    const e = GatewayError.from(error);
    return refuse(deps, ctx, e, e.code === 'request_too_large' ? 'request_too_large' : e.code === 'cancelled' ? 'client_cancelled' : 'invalid_request');
  }
  const requested = decoded.request.model ?? entry.model ?? undefined;
  ctx.requestedModel = requested ?? null;

  // 4. model, 5. access: denied and unknown answer alike
  const model = requested === undefined ? null : resolveModel(deps.registry, requested);
  const notFound = () =>
    new GatewayError('model_not_found', `The model '${requested ?? ''}' does not exist or you do not have access to it.`, { param: 'model' });
  if (model === null || model.staged) return refuse(deps, ctx, notFound(), 'model_not_found');
  ctx.model = model.id;
  if (deps.policy !== null) {
    const access = decideAccess({ policy: deps.policy, registry: deps.registry, principal, model: model.id, now: deps.now() });
    for (const d of access.wouldDeny) if (!ctx.wouldBlock.includes(d.detail)) ctx.wouldBlock.push(d.detail);
    if (!access.allowed) return refuse(deps, ctx, notFound(), access.reason ?? 'access_denied');
  }
  const wantKind = entry.kind === 'embed' ? 'embed' : 'generate';
  if (model.kind !== wantKind || !model.entryFormats.includes(format)) {
    return refuse(deps, ctx, notFound(), model.kind !== wantKind ? 'kind_not_offered' : 'format_not_offered');
  }

  // 7. what the policy says about the content that would leave
  const policyInput = {
    policy: deps.policy,
    registry: deps.registry,
    filters: deps.filters,
    dlp: deps.dlp,
    content: deps.content,
    ctx,
    principal,
    model: model.id,
    format,
  };
  if (decoded.kind === 'count_tokens') {
    const staged = await countPolicy(policyInput, decoded.request);
    if (!staged.ok) return refuse(deps, ctx, staged.error, staged.reason);
    decoded = { kind: 'count_tokens', request: staged.request };
  } else {
    const staged = await embedPolicy(policyInput, decoded.request);
    if (!staged.ok) return refuse(deps, ctx, staged.error, staged.reason);
    decoded = { kind: 'embed', request: staged.request };
  }

  // Where the data may go: the policy's region rules and the caller's x-tollgate-region, as for generation.
  const regions = new RegionRouting({
    policy: deps.policy,
    registry: deps.registry,
    principal,
    requested: requestedRegions(request.headers),
    model: model.id,
    name: requested ?? model.id,
    wouldBlock: ctx.wouldBlock,
  });
  return decoded.kind === 'count_tokens'
    ? countTokens(request, ctx, deps, model, format, principal, decoded.request, kindCodec as CountTokensCodec, regions)
    : embed(request, ctx, deps, model, format, principal, decoded.request, kindCodec as EmbeddingsCodec, regions);
}

/** Rate (and, for embeddings, spend) admission; refusals become the caller's error. */
async function admitKind(
  ctx: RequestContext,
  deps: WalkDeps,
  principal: Principal,
  model: Model,
  worstCaseMicros: number,
  tokenBound: number,
): Promise<Admission> {
  return admit({
    ctx,
    policy: deps.policy,
    registry: deps.registry,
    store: deps.store,
    principal,
    model: model.id,
    now: deps.now(),
    worstCaseMicros,
    tokenBound,
    reservationTtlMs: deps.reservationTtlMs,
    // Budget-tier substitution is for generation: a count or embedding is of the model asked
    // for, so no substitute can take it and a substitution in force refuses it as `block` would
    // (never serves it outside its reservation).
    substituted: false,
    canSubstitute: () => false,
    ...(deps.notify === undefined ? {} : { notify: deps.notify }),
    ...(deps.tenantOf === undefined ? {} : { tenantOf: deps.tenantOf }),
  });
}

const ZERO_COST = { input: 0, output: 0, cache_read: 0, cache_write: 0, cache_write_1h: 0, total: 0 };

async function countTokens(
  request: GatewayRequest,
  ctx: RequestContext,
  deps: WalkDeps,
  model: Model,
  format: WireFormat,
  principal: Principal,
  ir: IRRequest,
  entryCodec: CountTokensCodec,
  regions: RegionRouting,
): Promise<GatewayReply> {
  const counting = countCandidates(deps.registry, model, format).filter(
    (c) => c.deployment.enabled && countTokensCodecs[c.upstreamFormat] !== undefined && deps.codecs[c.upstreamFormat] !== undefined,
  );
  const list = regions.narrow(model, counting);
  const counter = model.tokenizer === null ? undefined : deps.tokenizers[model.tokenizer];
  if (list.length === 0 && counter === undefined) {
    // A local count sends nothing anywhere; without one, a region rule that left no counter says so.
    const outside = regions.refusal(model);
    if (outside !== null) return refuse(deps, ctx, outside.error, outside.reason);
    return refuse(
      deps,
      ctx,
      new GatewayError(
        'not_found',
        `The model '${ctx.requestedModel ?? model.id}' cannot count tokens: no deployment counts them and no tokenizer is declared.`,
      ),
      'count_tokens_unsupported',
    );
  }
  let admission: Admission;
  try {
    admission = await admitKind(ctx, deps, principal, model, 0, 0);
  } catch (error) {
    if (error instanceof AdmissionRefused) return refuse(deps, ctx, error.error, error.reason, error.headers);
    throw error;
  }
  ctx.reservedMicros = admission.reserved;
  if (admission.held) deps.holds.track(ctx.id);
  // What every admitted answer carries, as for generation: the budget status and crossed `message` texts.
  const budget = decisionHeaders(admission.spend);
  const finish = async (tokens: number): Promise<GatewayReply> => {
    ctx.countedTokens = tokens;
    ctx.usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: true };
    await settleUsage({ ctx, holds: deps.holds, pricing: null, timezone: deps.timezone, completed: true, tally: deps.tally });
    ctx.cost = { ...ZERO_COST };
    ctx.httpStatus = 200;
    writeRecord(ctx, deps.sink);
    return completeReply(200, JSON.stringify(entryCodec.encodeResponse(tokens)), {
      'content-type': 'application/json',
      'x-tollgate-request-id': ctx.id,
      ...budget,
    });
  };

  if (list.length === 0) {
    // Local: the model's public tokenizer.
    ctx.deployment = null;
    const tokens = await countLocally(ir, counter!).catch(() => null);
    if (tokens === null) {
      await deps.holds.release(ctx.id, tokenAdjustments(ctx, 0));
      return refuse(
        deps,
        ctx,
        new GatewayError('not_found', 'The request holds images or files, which the local tokenizer cannot count.'),
        'count_tokens_unsupported',
        budget,
      );
    }
    return finish(tokens);
  }

  const ordered = pickWeighted(list, () => `${principal.id}\u0000count`);
  const answer = await call(
    request,
    ctx,
    deps,
    ordered,
    (target) => countTokensCodecs[target.upstreamFormat]!.encodeRequest(ir, { model: target.upstreamModel, stream: false }).body,
    budget,
  );
  if (answer.reply !== undefined) return answer.reply;
  let tokens: number;
  try {
    tokens = countTokensCodecs[answer.target.upstreamFormat]!.decodeResponse(JSON.parse(answer.text));
  } catch (cause) {
    return upstreamBad(ctx, deps, budget, cause);
  }
  return finish(tokens);
}

/** The worst case of an embedding request: every text input at its UTF-8 length, token inputs at theirs. */
export function embedTokenBound(request: EmbedRequest): number {
  let total = 0;
  for (const input of request.inputs) total += (typeof input === 'string' ? utf8Length(input) : input.length) + PER_INPUT_TOKENS;
  return total;
}

async function embed(
  request: GatewayRequest,
  ctx: RequestContext,
  deps: WalkDeps,
  model: Model,
  format: WireFormat,
  principal: Principal,
  embedRequest: EmbedRequest,
  entryCodec: EmbeddingsCodec,
  regions: RegionRouting,
): Promise<GatewayReply> {
  const found = regions.narrow(
    model,
    candidatesFor(deps.registry, model, format).filter(
      (c) => c.deployment.enabled && embeddingsCodecs[c.upstreamFormat] !== undefined && deps.codecs[c.upstreamFormat] !== undefined,
    ),
  );
  const outside = found.length === 0 ? regions.refusal(model) : null;
  if (outside !== null) return refuse(deps, ctx, outside.error, outside.reason);
  if (found.length === 0)
    return refuse(
      deps,
      ctx,
      new GatewayError('model_not_found', `The model '${ctx.requestedModel ?? model.id}' does not exist or you do not have access to it.`, { param: 'model' }),
      'no_route',
    );
  let list = pickWeighted(found, () => `${principal.id}\u0000embed`);
  ctx.promptBound = embedTokenBound(embedRequest);
  ctx.outputBound = 0;
  ctx.costBounded = true;
  ctx.promptBoundFirm = true;
  let admission: Admission;
  try {
    admission = await admitKind(ctx, deps, principal, model, maxWorstCase(list, { promptTokens: ctx.promptBound, outputTokens: 0 }), ctx.promptBound);
  } catch (error) {
    if (error instanceof AdmissionRefused) return refuse(deps, ctx, error.error, error.reason, error.headers);
    throw error;
  }
  ctx.reservedMicros = admission.reserved;
  if (admission.held) deps.holds.track(ctx.id);
  // `no_promote`, as for generation: nowhere dearer than the first candidate, at this request's bound.
  ctx.noPromote = admission.spend?.noPromote === true;
  if (ctx.noPromote) list = new PriceCeiling(list[0]!, { promptTokens: ctx.promptBound, outputTokens: 0 }).keep(list);
  const budget = decisionHeaders(admission.spend);
  const answer = await call(
    request,
    ctx,
    deps,
    list,
    (target) => embeddingsCodecs[target.upstreamFormat]!.encodeRequest(embedRequest, { model: target.upstreamModel }).body,
    budget,
  );
  if (answer.reply !== undefined) return answer.reply;
  const candidate = list.find((c) => c.deployment.id === answer.target.deploymentId)!;
  let out: string;
  try {
    const response = embeddingsCodecs[answer.target.upstreamFormat]!.decodeResponse(JSON.parse(answer.text));
    if (response.vectors.length !== embedRequest.inputs.length) throw new Error(`${response.vectors.length} vectors for ${embedRequest.inputs.length} inputs`);
    ctx.usage = response.usage;
    out = JSON.stringify(entryCodec.encodeResponse(response, embedRequest, { model: ctx.requestedModel ?? model.id }).body);
  } catch (cause) {
    return upstreamBad(ctx, deps, budget, cause, candidate);
  }
  // Gemini reports no usage for embeddings: settling estimates it (the bound, marked unmeasured).
  await settleUsage({ ctx, holds: deps.holds, pricing: candidate.deployment.pricing, timezone: deps.timezone, completed: true, tally: deps.tally });
  ctx.httpStatus = 200;
  writeRecord(ctx, deps.sink);
  return completeReply(200, out, { 'content-type': 'application/json', 'x-tollgate-request-id': ctx.id, ...budget });
}

async function upstreamBad(ctx: RequestContext, deps: WalkDeps, headers: Record<string, string>, cause: unknown, candidate?: Candidate): Promise<GatewayReply> {
  await settleUsage({ ctx, holds: deps.holds, pricing: candidate?.deployment.pricing ?? null, timezone: deps.timezone, completed: false, tally: deps.tally });
  ctx.reject(502, 'upstream_bad_response', 'upstream_error');
  writeRecord(ctx, deps.sink);
  return errorReply(
    deps.codecs,
    new GatewayError('upstream_error', 'The upstream returned a response that could not be read.', { cause }),
    ctx.entryFormat,
    headers,
  );
}

/**
 * Dispatch to the candidates (failover as for generation) and read the whole answer, or the reply
 * to give instead (an error in the caller's format, carrying `headers`: the admission's budget status).
 */
async function call(
  request: GatewayRequest,
  ctx: RequestContext,
  deps: WalkDeps,
  list: readonly Candidate[],
  bodyFor: (target: UpstreamTarget) => Record<string, unknown>,
  headers: Record<string, string>,
): Promise<{ reply: GatewayReply; target?: undefined; text?: undefined } | { reply?: undefined; target: UpstreamTarget; text: string }> {
  const signal = request.signal;
  const result = await dispatch({
    targets: list.map(toTarget),
    build: async (target) => buildUpstreamCall(target, JSON.stringify(bodyFor(target)), false, request.headers, deps.secrets, signal),
    fetch: deps.fetch,
    breakers: deps.breakers,
    failover: deps.failover,
    clientSignal: signal,
    observer: ctx.observer,
  }).catch((error: unknown) => error as Error);
  if (result instanceof Error) {
    await deps.holds.release(ctx.id, tokenAdjustments(ctx, 0));
    const e = GatewayError.from(result);
    ctx.attempts = Math.max(ctx.attempts, 1);
    if (e.code === 'cancelled') {
      ctx.reject(499, 'client_cancelled', 'cancelled');
      writeRecord(ctx, deps.sink);
      return { reply: errorReply(deps.codecs, e, ctx.entryFormat, headers) };
    }
    ctx.reject(e.status, `upstream:${e.code}`, 'upstream_error');
    writeRecord(ctx, deps.sink);
    return { reply: errorReply(deps.codecs, e, ctx.entryFormat, headers) };
  }
  const candidate = list.find((c) => c.deployment.id === result.target.deploymentId)!;
  ctx.attempts = result.attempts;
  ctx.deployment = candidate.deployment.id;
  ctx.region = candidate.deployment.region;
  ctx.provider = candidate.provider.id;
  ctx.upstreamModel = candidate.deployment.upstreamModel;
  ctx.upstreamFormat = candidate.upstreamFormat;
  const response = result.response;
  if (response.status < 200 || response.status > 299) {
    const text = await readText(response.body, MAX_ERROR_BYTES);
    ctx.observer?.upstreamDone();
    let parsed: unknown = text;
    try {
      parsed = text === null ? null : JSON.parse(text);
    } catch {
      // not JSON: decodeError copes with anything
    }
    const decodedError = deps.codecs[candidate.upstreamFormat]!.decodeError(response.status, parsed, response.headers);
    guardErrorMessage(ctx, response.status, decodedError);
    const info = upstreamErrorForClient(response, decodedError, result.target, deps);
    await deps.holds.release(ctx.id, tokenAdjustments(ctx, 0));
    ctx.reject(info.status, `upstream_${response.status}`, 'upstream_error');
    writeRecord(ctx, deps.sink);
    return { reply: errorReply(deps.codecs, info, ctx.entryFormat, headers) };
  }
  const read = await readBody(response.body, MAX_ANSWER_BYTES);
  ctx.observer?.upstreamDone();
  ctx.markFirstByte();
  if (!read.ok) {
    await settleUsage({ ctx, holds: deps.holds, pricing: candidate.deployment.pricing, timezone: deps.timezone, completed: false, tally: deps.tally });
    if (signal.aborted) {
      ctx.reject(499, 'client_cancelled', 'cancelled');
      writeRecord(ctx, deps.sink);
      return { reply: errorReply(deps.codecs, new GatewayError('cancelled', 'The client cancelled the request.'), ctx.entryFormat, headers) };
    }
    if (isTimeoutError(read.failure)) {
      // The head came, the body stalled past the transport's idle bound or deadline.
      ctx.reject(504, 'upstream_timeout', 'upstream_error');
      writeRecord(ctx, deps.sink);
      return {
        reply: errorReply(
          deps.codecs,
          new GatewayError('upstream_timeout', 'The upstream did not finish its answer in time.', { cause: read.failure }),
          ctx.entryFormat,
          headers,
        ),
      };
    }
    ctx.reject(502, 'upstream_bad_response', 'upstream_error');
    writeRecord(ctx, deps.sink);
    return {
      reply: errorReply(deps.codecs, new GatewayError('upstream_error', 'The upstream returned a response that could not be read.'), ctx.entryFormat, headers),
    };
  }
  return { target: result.target, text: read.text };
}

export const operationKinds: OperationKinds = Object.freeze({ walk: walkKind });
