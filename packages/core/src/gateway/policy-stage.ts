/**
 * Stage 7 of the walk: what the policy says about the request's content, then the caller's
 * own filters. In order: tool allow lists (a declared tool outside them: 403), the gateway's
 * request filters, DLP over every text the client sends (block: 400; redact and pseudonymize
 * rewrite), then policy prompts before the client's system prompt. DLP runs after the filters,
 * so what leaves is what was scanned; prompts come last, as the operator's own text.
 */
import { GatewayError, type Request as IRRequest, type WireFormat } from '@tollgate/codecs/base';
import type { Policy, Principal } from '@tollgate/policy';
import type { Registry } from '../registry/index.js';
import type { AnswerDlp, AnswerGuard, ToolGuard } from './answer-guard.js';
import type { RequestContext } from './context.js';
import type { RequestFilter } from './filters.js';

/** What request-side DLP (stage 7) did: the request to send, or why it may not be sent. */
export type DlpStageResult = { ok: true; ir: IRRequest; reencode: boolean; output: AnswerDlp | null } | { ok: false; error: GatewayError; reason: string };

/** DLP for one gateway, made by its engine (`DlpEngine.stage`); the stage calls it for every request when there is a policy. */
export interface DlpDeps {
  /**
   * Scan and rewrite the request's texts per the policy, counting into `ctx` (`dlp`, and
   * `wouldBlock` in shadow mode). `reencode`: send the request encoded from the scanned IR,
   * never as the client's bytes; `output`: how its answer is guarded.
   */
  run(input: { policy: Policy; principal: Principal; ir: IRRequest; ctx: RequestContext }): Promise<DlpStageResult>;
}

/** One request, for the content engine: the policy's tool allow lists and prompts for it. */
export interface ContentInput {
  policy: Policy;
  registry: Registry;
  principal: Principal;
  model: string;
  format: WireFormat;
  ir: IRRequest;
  ctx: RequestContext;
}

/** What the tool allow lists say of a request: refused, or allowed with the guard its answer gets (null when no list applies). */
export type ToolsResult = { ok: true; guard: ToolGuard | null } | { ok: false; error: GatewayError; reason: string };

/**
 * The policy's content rules (`contentEngine` of `@tollgate/core/content`): `createGateway` of
 * `@tollgate/core` passes it by default; `@tollgate/core/minimal` refuses a policy with tool
 * allow lists or prompts without it.
 */
export interface ContentEngine {
  /** Tool allow lists on the tools the request declares (counting what shadow lists would deny into `ctx.wouldBlock`). */
  tools(input: ContentInput): ToolsResult;
  /** The request with the policy prompts chosen for it before the client's system prompt (named in `ctx.policyPrompts`). */
  prompts(input: ContentInput): IRRequest;
}

export interface PolicyStageInput {
  policy: Policy | null;
  registry: Registry;
  filters: readonly RequestFilter[];
  dlp: DlpDeps | null;
  content: ContentEngine | null;
  ctx: RequestContext;
  principal: Principal;
  model: string;
  format: WireFormat;
  ir: IRRequest;
}

/**
 * `reencode`: the request must be sent encoded from the (scanned) IR, never as the client's
 * own bytes — DLP is on for this caller.
 */
export type PolicyStageResult = { ok: true; ir: IRRequest; reencode: boolean } | { ok: false; error: GatewayError; reason: string };

export async function policyStage(input: PolicyStageInput): Promise<PolicyStageResult> {
  const { policy, ctx, principal, model } = input;
  let ir = input.ir;
  let guard: AnswerGuard = { tools: null, output: null };
  let reencode = false;

  // Tool allow lists, on what the request declares.
  if (policy !== null && input.content !== null) {
    const t = input.content.tools({ policy, registry: input.registry, principal, model, format: input.format, ir, ctx });
    if (!t.ok) return t;
    if (t.guard !== null) guard = { ...guard, tools: t.guard };
  }

  // The gateway's own request filters.
  for (const filter of input.filters) {
    try {
      ir = await filter.apply(ir, { principal, model, requestId: ctx.id });
    } catch (error) {
      const e = GatewayError.isInstance(error)
        ? error
        : new GatewayError('unavailable', 'A required request check could not complete; the request was not sent.', { cause: error });
      return { ok: false, error: e, reason: `filter:${filter.name}` };
    }
  }

  // DLP over every text the client sends.
  if (policy !== null && input.dlp !== null) {
    const result = await input.dlp.run({ policy, principal, ir, ctx });
    if (!result.ok) return result;
    ir = result.ir;
    reencode = result.reencode;
    guard = { ...guard, output: result.output };
    ctx.errorDlp = result.output;
  }

  // Policy prompts, before the client's own system prompt, in file order: a stable prefix.
  if (policy !== null && input.content !== null)
    ir = input.content.prompts({ policy, registry: input.registry, principal, model, format: input.format, ir, ctx });

  if (guard.tools !== null || guard.output !== null) ctx.answerGuard = guard;
  return { ok: true, ir, reencode };
}
