/**
 * Stage 10's output guard: a model answer calling a tool the request did not declare, or one
 * outside the caller's allow lists, is not relayed; with DLP, the engine's answer side
 * (`AnswerDlp`, from `@tollgate/core/dlp`) restores surrogates and scans the answer. Whole
 * answers are guarded at once, streams event by event.
 */
import { GatewayError, type Response as IRResponse, type StreamEvent } from '@tollgate/codecs/base';
import type { RequestContext } from './context.js';

export interface ToolGuard {
  /** Tool names the request declared. */
  declared: ReadonlySet<string>;
  /** Whether the caller's allow lists allow a tool. */
  allowed(name: string): boolean;
  /** False in shadow mode: report, never block. */
  enforced: boolean;
}

/** DLP on one request's answer, made by the DLP engine (`DlpEngine.guardAnswer`). */
export interface AnswerDlp {
  /** The answer's texts are scanned by detectors (not only restored): it is re-encoded from what was scanned, never relayed as the upstream's bytes. */
  readonly scanning: boolean;
  /** Guard a whole answer: the answer to relay (the same object when unchanged), or the error to answer with. */
  response(response: IRResponse, ctx: RequestContext): { response: IRResponse } | { error: GatewayError };
  /** A stream transform, event by event, for this request. */
  stream(ctx: RequestContext): (event: StreamEvent, emit: (event: StreamEvent) => void) => void;
  /**
   * An upstream error's message as the caller may see it: the request's surrogates put back
   * (an upstream quoting the prompt quotes them), and with scanning, what the policy withholds
   * withheld.
   */
  message(text: string, ctx: RequestContext): string;
}

export interface AnswerGuard {
  tools: ToolGuard | null;
  output: AnswerDlp | null;
}

/** A call the gateway cannot name (null, or an empty name) is never allowed: `tool_call_blocked:unnamed`. */
function toolRefusal(ctx: RequestContext, tools: ToolGuard, name: string | null): GatewayError | null {
  const named = name !== null && name !== '';
  if (named && tools.declared.has(name) && tools.allowed(name)) return null;
  const reason = `tool_call_blocked:${named ? name : 'unnamed'}`;
  if (!tools.enforced) {
    if (!ctx.wouldBlock.includes(reason)) ctx.wouldBlock.push(reason);
    return null;
  }
  ctx.guardReason = reason;
  const what = named ? `the tool '${name}'` : 'a tool the gateway cannot name';
  return new GatewayError('upstream_error', `The model called ${what}, which this request may not use; the answer was withheld.`);
}

/**
 * Guard a whole answer: the answer to relay (the same object when unchanged), or the error to
 * answer with. `calls`: every tool call of the answer as the upstream sent it
 * (`Codec.answerToolCalls`: every choice, every kind), checked as well as the decoded ones —
 * the upstream's own bytes may be relayed, and they carry them all.
 */
export function guardResponse(
  response: IRResponse,
  guard: AnswerGuard,
  ctx: RequestContext,
  calls: ReadonlyArray<string | null> = [],
): { response: IRResponse } | { error: GatewayError } {
  if (guard.tools !== null) {
    const names = [...response.content.flatMap((p) => (p.type === 'tool_call' ? [p.name] : [])), ...calls];
    for (const name of names) {
      const e = toolRefusal(ctx, guard.tools, name);
      if (e !== null) return { error: e };
    }
  }
  return guard.output === null ? { response } : guard.output.response(response, ctx);
}

/** The stream transform (`convertStreamChunks`' `transform`) for one request. */
export function guardStream(guard: AnswerGuard, ctx: RequestContext): (event: StreamEvent, emit: (event: StreamEvent) => void) => void {
  const dlp = guard.output?.stream(ctx) ?? null;
  const tools = guard.tools;
  let stopped = false;
  return (event, emit) => {
    if (stopped) return;
    if (event.type === 'block_start' && event.block.kind === 'tool_call' && tools !== null) {
      const e = toolRefusal(ctx, tools, event.block.name);
      if (e !== null) {
        stopped = true;
        return emit({ type: 'error', error: { code: e.code, status: e.status, message: e.message } });
      }
    }
    if (dlp === null) return emit(event);
    dlp(event, emit);
  };
}
