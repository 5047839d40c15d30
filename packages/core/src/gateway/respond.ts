import { GatewayError, codeForStatus, codecOf, isTimeoutError, streamContentType, type ErrorInfo } from '@tollgate/codecs/base';
import { credentialSecrets, type Candidate } from '../registry/index.js';
import type { Admission } from './admission.js';
import { decisionHeaders, headerValue } from './budget-headers.js';
import { lossyWarnings, warningsHeader, type RequestContext } from './context.js';
import { settleUsage, tokenAdjustments, writeRecord } from './finalize.js';
import { guardResponse, guardStream } from './answer-guard.js';
import { relayStream, type StreamOutcome } from './relay.js';
import { utf8Length } from './sizing.js';
import { completeReply, errorReply, streamReply } from './render.js';
import { scrubMessage } from './scrub.js';
import { afterPendingIo } from '../util/later.js';
import { isClientStalled } from './client-gone.js';
import { eachChunk, type BodySource, type GatewayReply, type UpstreamResponse } from './request.js';
import type { UpstreamTarget } from './upstream.js';
import type { WalkDeps } from './walk-deps.js';

export interface RespondInput {
  deps: WalkDeps;
  ctx: RequestContext;
  candidate: Candidate;
  target: UpstreamTarget;
  response: UpstreamResponse;
  admission: Admission;
  /** The model name the client asked for, shown in translated responses. */
  clientModel: string;
  /** The client's signal: a body read that fails after it aborted is the client's cancel. */
  clientSignal: AbortSignal;
}

const MAX_ERROR_BODY = 1024 * 1024;
const MAX_RESPONSE_BODY = 64 * 1024 * 1024;

/** Headers every governed response carries (after those in `headers`): the budget status (the tightest cap) among them. */
function governanceHeaders(ctx: RequestContext, admission: Admission, headers: Record<string, string> = {}): Record<string, string> {
  headers['x-tollgate-request-id'] = ctx.id;
  headers['x-tollgate-unclassified-fields'] = String(ctx.unclassified);
  decisionHeaders(admission.spend, headers);
  if (ctx.substitutedFrom !== null) headers['x-tollgate-model-fallback'] = headerValue(`${ctx.substitutedFrom} -> ${ctx.model}`);
  const warnings = warningsHeader(ctx.warnings);
  if (warnings !== undefined) headers['x-tollgate-warnings'] = warnings;
  return headers;
}

const textDecoder = new TextDecoder();

/** A body read whole: its text, or why it could not be (too large, or the read failed). */
export type BodyText = { ok: true; text: string } | { ok: false; failure: unknown };

/** Read at most `max` bytes of a body as text; the rest is cancelled. Null when too large or unreadable. */
export async function readText(body: BodySource | null, max: number): Promise<string | null> {
  const read = await readBody(body, max);
  return read.ok ? read.text : null;
}

export async function readBody(body: BodySource | null, max: number): Promise<BodyText> {
  if (body === null) return { ok: true, text: '' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const whole = await eachChunk(body, (chunk) => {
      size += chunk.byteLength;
      if (size > max) return false;
      chunks.push(chunk);
      return true;
    });
    if (!whole) return { ok: false, failure: new Error(`upstream body larger than ${max} bytes`) };
  } catch (failure) {
    return { ok: false, failure };
  }
  if (chunks.length === 1) return { ok: true, text: textDecoder.decode(chunks[0]) };
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, text: textDecoder.decode(all) };
}

/** Answer from the upstream's response: an error in the caller's format, a relayed stream, or a converted body. */
export async function respond(input: RespondInput): Promise<GatewayReply> {
  const { deps, ctx, candidate, target, response, admission } = input;
  const entry = ctx.entryFormat!;
  // Both are in the table: the gateway refused to start on a route or deployment without one.
  const entryCodec = codecOf(deps.codecs, entry);
  const upstreamCodec = codecOf(deps.codecs, target.upstreamFormat);
  // A stream's own headers come first, as they always did, in the one object written.
  const relaying = ctx.stream && response.body !== null && response.status >= 200 && response.status <= 299;
  const headers = governanceHeaders(ctx, admission, relaying ? { 'content-type': streamContentType(entryCodec), 'cache-control': 'no-cache' } : {});
  const pricing = candidate.deployment.pricing;
  const settle = (completed: boolean) => settleUsage({ ctx, holds: deps.holds, pricing, timezone: deps.timezone, completed, tally: deps.tally });

  if (response.status < 200 || response.status > 299) {
    const text = await readText(response.body, MAX_ERROR_BODY);
    ctx.observer?.upstreamDone();
    let parsed: unknown = text;
    try {
      parsed = text === null ? null : JSON.parse(text);
    } catch {
      // not JSON: decodeError copes with anything
    }
    const decoded = upstreamCodec.decodeError(response.status, parsed, response.headers);
    // DLP reads the message as the upstream wrote it (surrogates put back, withheld if the
    // policy says so); the scrub of keys and identifiers comes after, on what is left.
    guardErrorMessage(ctx, response.status, decoded);
    const info = upstreamErrorForClient(response, decoded, target, deps);
    await deps.holds.release(ctx.id, tokenAdjustments(ctx, 0));
    ctx.reject(info.status, `upstream_${response.status}`, 'upstream_error');
    writeRecord(ctx, deps.sink);
    return errorReply(deps.codecs, info, entry, headers);
  }

  if (ctx.stream) {
    if (response.body === null) {
      await settle(false);
      ctx.reject(502, 'upstream_empty_body', 'upstream_error');
      writeRecord(ctx, deps.sink);
      return errorReply(deps.codecs, new GatewayError('upstream_error', 'The upstream returned no stream.'), entry, headers);
    }
    // The hold is renewed from admission until the settle succeeds (HoldKeeper), not here.
    let resolveDone!: () => void;
    deps.trackStream(new Promise<void>((r) => (resolveDone = r)));
    const onEnd = (outcome: StreamOutcome) => {
      ctx.observer?.upstreamDone();
      // An abort that came before the stream's outcome (and made it fail) is the client's cancel.
      ctx.noteClientAbort(input.clientSignal);
      // Whichever came first decides: a client that stops reading after an in-stream error
      // (SDKs throw, then cancel) did not cancel a healthy stream; a stream that errors
      // because the client went away was cancelled.
      const cancelledFirst = ctx.clientCancelled || (outcome === 'cancelled' && ctx.streamError === null);
      if (ctx.guardReason !== null) {
        // The output guard withheld the rest of the answer (and cancelled the upstream).
        ctx.status = 'rejected';
        ctx.reason = ctx.guardReason;
      } else if (cancelledFirst) {
        ctx.status = 'cancelled';
        // Disconnected by the adapter for not reading (the signal says so), or gone by itself.
        ctx.reason = isClientStalled(input.clientSignal.reason) ? 'client_stalled' : 'client_cancelled';
      } else if (outcome === 'failed' || ctx.streamError !== null) {
        ctx.status = 'upstream_error';
        ctx.reason = `stream_${ctx.streamError ?? 'failed'}`;
      }
      void settle(outcome === 'completed' && !ctx.clientCancelled).finally(() => {
        writeRecord(ctx, deps.sink);
        resolveDone();
      });
    };
    const relayOptions: Parameters<typeof relayStream>[2] = {
      upstreamCodec,
      entryCodec,
      translated: !(target.upstreamFormat === entry && target.plan === 'identity'),
      clientModel: input.clientModel,
      includeUsage: ctx.includeUsage,
      clientSignal: input.clientSignal,
      onEnd,
    };
    if (ctx.answerGuard !== null) relayOptions.transform = guardStream(ctx.answerGuard, ctx);
    const chunks = relayStream(response.body, ctx, relayOptions);
    ctx.httpStatus = 200;
    return streamReply(200, headers, chunks);
  }

  const read = await readBody(response.body, MAX_RESPONSE_BODY);
  ctx.observer?.upstreamDone();
  ctx.markFirstByte();
  let out: string;
  let withheld: GatewayError | null = null;
  try {
    if (!read.ok) throw read.failure;
    const text = read.text;
    const parsed: unknown = JSON.parse(text);
    const decoded = upstreamCodec.decodeResponse(parsed);
    ctx.usage = decoded.response.usage;
    for (const p of decoded.response.content) {
      // Counted as a stream's deltas are: what the estimate charges when the usage is missing or broken.
      if (p.type === 'text' || p.type === 'reasoning') {
        ctx.outputDeltas++;
        ctx.outputBytes += utf8Length(p.text);
      } else if (p.type === 'tool_call') {
        ctx.toolsInvoked.add(p.name);
        ctx.outputDeltas++;
        ctx.outputBytes += utf8Length(p.arguments);
      }
    }
    let answer = decoded.response;
    if (ctx.answerGuard !== null) {
      const calls = ctx.answerGuard.tools !== null ? (upstreamCodec.answerToolCalls?.(parsed) ?? []) : [];
      const guarded = guardResponse(answer, ctx.answerGuard, ctx, calls);
      if ('error' in guarded) withheld = guarded.error;
      else answer = guarded.response;
    }
    // The upstream's own bytes only when nothing guards the answer's content, or the guard
    // changed nothing and scanned nothing: a scanned answer is re-encoded from what was scanned.
    const scanned = ctx.answerGuard?.output?.scanning ?? false;
    if (target.upstreamFormat === entry && target.plan === 'identity' && answer === decoded.response && !scanned) out = text;
    else {
      const encoded = entryCodec.encodeResponse(answer, { model: input.clientModel });
      out = JSON.stringify(encoded.body);
      // What the client's format has no place for (a translated answer only: a re-encoded same-format one loses nothing).
      const dropped = target.upstreamFormat === entry ? [] : lossyWarnings([...decoded.warnings, ...encoded.warnings]);
      if (dropped.length > 0) {
        ctx.warnings.push(...dropped);
        headers['x-tollgate-warnings'] = warningsHeader(ctx.warnings)!;
      }
    }
  } catch (cause) {
    await settle(false);
    if (input.clientSignal.aborted) {
      // The client left while the answer was read (which aborted that read): its cancel.
      ctx.reject(499, 'client_cancelled', 'cancelled');
      writeRecord(ctx, deps.sink);
      return errorReply(deps.codecs, new GatewayError('cancelled', 'The client cancelled the request.', { cause }), entry, headers);
    }
    if (isTimeoutError(cause)) {
      // The head came, the body stalled past the idle bound (or the call past its deadline).
      ctx.reject(504, 'upstream_timeout', 'upstream_error');
      writeRecord(ctx, deps.sink);
      return errorReply(deps.codecs, new GatewayError('upstream_timeout', 'The upstream did not finish its answer in time.', { cause }), entry, headers);
    }
    ctx.reject(502, 'upstream_bad_response', 'upstream_error');
    writeRecord(ctx, deps.sink);
    return errorReply(deps.codecs, new GatewayError('upstream_error', 'The upstream returned a response that could not be read.', { cause }), entry, headers);
  }
  const measured = ctx.usage !== null;
  if (withheld !== null) {
    // The model answered (and is paid for), but the output guard does not let the answer through.
    await settle(measured);
    ctx.reject(withheld.status, ctx.guardReason ?? 'output_withheld', 'rejected');
    writeRecord(ctx, deps.sink);
    return errorReply(deps.codecs, withheld, entry, headers);
  }
  ctx.httpStatus = 200;
  await afterAnswer(ctx, deps, () => settle(measured));
  return completeReply(200, out, { 'content-type': 'application/json', ...headers });
}

/**
 * Settling and recording a whole answer: done before the answer is returned, unless the caller
 * of `reply` offered to run it once the answer is on its way (`defer`): then the answer does not
 * wait for it, and `close()` still does. Deferred, the settle comes first and at once, so the
 * same client's next request is admitted against this answer's cost rather than its worst-case
 * hold; the record follows once the I/O already waiting (that next request, say) was taken.
 */
async function afterAnswer(ctx: RequestContext, deps: WalkDeps, settle: () => Promise<void>): Promise<void> {
  const defer = ctx.defer;
  if (defer === null) {
    await settle();
    writeRecord(ctx, deps.sink);
    return;
  }
  // Runs once, whoever comes first: the caller after writing, or `close()` if the caller never did.
  const run = deps.trackDeferred(async () => {
    await settle();
    await afterPendingIo();
    writeRecord(ctx, deps.sink);
  });
  try {
    defer(run);
  } catch {
    // A `defer` that throws does not take the work: do it now.
    await run();
  }
}

/**
 * DLP on an upstream error's message, as the upstream wrote it (surrogates put back, withheld if
 * the policy says so), before the scrub of keys and identifiers. A 401/403's message is replaced
 * by the gateway's own: nothing of it reaches the client, so nothing is scanned or counted.
 */
export function guardErrorMessage(ctx: RequestContext, status: number, decoded: ErrorInfo): void {
  if (ctx.errorDlp === null || status === 401 || status === 403) return;
  decoded.message = ctx.errorDlp.message(decoded.message, ctx);
}

/**
 * An upstream error as the caller should see it: the message scrubbed; the gateway's own
 * credential problems (401/403 upstream) shown as a gateway-side failure, not the caller's.
 */
export function upstreamErrorForClient(response: UpstreamResponse, decoded: ErrorInfo, target: UpstreamTarget, deps: WalkDeps): ErrorInfo {
  const status = response.status;
  if (status === 401 || status === 403) {
    if (target.credential !== null) for (const name of credentialSecrets(target.credential)) deps.secrets.drop(name);
    return { code: 'upstream_error', status: 502, message: 'The upstream provider rejected the gateway credentials.' };
  }
  const info: ErrorInfo = { code: decoded.code ?? codeForStatus(status), status: decoded.status || status, message: scrubMessage(decoded.message) };
  if (decoded.param !== undefined) info.param = decoded.param;
  if (decoded.limit !== undefined) info.limit = decoded.limit;
  const retryAfter = Number(response.headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) info.retryAfterS = Math.ceil(retryAfter);
  return info;
}
