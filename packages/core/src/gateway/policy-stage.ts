/**
 * Stage 7 of the walk: what the policy says about the request's content, then the caller's
 * own filters. In order: tool allow lists (a declared tool outside them: 403), the gateway's
 * request filters, DLP over every text the client sends (block: 400; redact and pseudonymize
 * rewrite), then policy prompts before the client's system prompt. DLP runs after the filters,
 * so what leaves is what was scanned; prompts come last, as the operator's own text.
 */
import { GatewayError, type Request as IRRequest, type TextPart, type WireFormat } from '@tollgate/codecs/base';
import { decidePrompts, decideTools, type Policy, type Principal } from '@tollgate/policy';
import type { Registry } from '../registry/index.js';
import type { AnswerDlp, AnswerGuard } from './answer-guard.js';
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

export interface PolicyStageInput {
  policy: Policy | null;
  registry: Registry;
  filters: readonly RequestFilter[];
  dlp: DlpDeps | null;
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

/**
 * Built-in tools a request carries outside the function list (Responses `web_search`, Anthropic
 * server tools, Bedrock system tools and the Anthropic tools of `additionalModelRequestFields`):
 * by name, else type.
 */
function vendorToolNames(ir: IRRequest): string[] {
  const fields = ir.vendor?.fields;
  if (fields === undefined) return [];
  const lists: unknown[] = [fields['tools']];
  const toolConfig = fields['toolConfig'];
  if (typeof toolConfig === 'object' && toolConfig !== null) lists.push((toolConfig as Record<string, unknown>)['tools']);
  const additional = fields['additionalModelRequestFields'];
  if (typeof additional === 'object' && additional !== null) lists.push((additional as Record<string, unknown>)['tools']);
  return lists.flatMap((tools) => {
    if (!Array.isArray(tools)) return [];
    return tools.flatMap((t) => {
      if (typeof t !== 'object' || t === null) return [];
      let o = t as Record<string, unknown>;
      // Bedrock: { systemTool: { name } }.
      if (typeof o['systemTool'] === 'object' && o['systemTool'] !== null) o = o['systemTool'] as Record<string, unknown>;
      const name = typeof o['name'] === 'string' ? o['name'] : typeof o['type'] === 'string' ? o['type'] : undefined;
      return name === undefined ? [] : [name];
    });
  });
}

export async function policyStage(input: PolicyStageInput): Promise<PolicyStageResult> {
  const { policy, ctx, principal, model } = input;
  let ir = input.ir;
  let guard: AnswerGuard = { tools: null, output: null };
  let reencode = false;

  // Tool allow lists, on what the request declares.
  if (policy !== null && (policy.tools?.allow_lists ?? []).length > 0) {
    const declared = [...ir.tools.map((t) => t.name), ...vendorToolNames(ir)];
    const d = decideTools({ policy, registry: input.registry, principal, model, tools: declared });
    for (const name of d.wouldDeny) ctx.wouldBlock.push(`tool_not_allowed:${name}`);
    if (!d.allowed) {
      const name = d.denied[0]!;
      return {
        ok: false,
        error: new GatewayError('permission_denied', `The tool '${name}' is not allowed for this caller.`, { param: 'tools' }),
        reason: `tool_not_allowed:${name}`,
      };
    }
    if (d.lists.length > 0) {
      const allowed = new Map<string, boolean>();
      guard = {
        ...guard,
        tools: {
          declared: new Set(declared),
          enforced: d.enforced,
          allowed(name) {
            let ok = allowed.get(name);
            if (ok === undefined)
              allowed.set(name, (ok = decideTools({ policy, registry: input.registry, principal, model, tools: [name], enforcement: 'enforce' }).allowed));
            return ok;
          },
        },
      };
    }
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
  }

  // Policy prompts, before the client's own system prompt, in file order: a stable prefix.
  if (policy !== null && (policy.prompts ?? []).length > 0) {
    const chosen = decidePrompts({ policy, registry: input.registry, principal, model, format: input.format });
    if (chosen.length > 0) {
      const parts: TextPart[] = chosen.map((p) => ({ type: 'text', text: p.text }));
      ir = { ...ir, system: [...parts, ...ir.system] };
      ctx.policyPrompts = chosen.map((p) => `${p.id}@${p.version}`);
    }
  }

  if (guard.tools !== null || guard.output !== null) ctx.answerGuard = guard;
  return { ok: true, ir, reencode };
}
