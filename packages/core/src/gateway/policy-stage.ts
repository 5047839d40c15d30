/**
 * Stage 7 of the walk: what the policy says about the request's content, then the caller's
 * own filters. In order: tool allow lists (a declared tool outside them: 403), the gateway's
 * request filters, DLP over every text the client sends (block: 400; redact and pseudonymize
 * rewrite), then policy prompts before the client's system prompt. DLP runs after the filters,
 * so what leaves is what was scanned; prompts come last, as the operator's own text.
 */
import { GatewayError, type Request as IRRequest, type TextPart, type WireFormat } from '@tollgate/codecs/base';
import { decidePrompts, decideTools, type Policy, type Principal } from '@tollgate/policy';
import type { Recognizer } from '@tollgate/policy/detectors';
import type { DlpEngine } from '../dlp/engine.js';
import type { Registry } from '../registry/index.js';
import type { AnswerGuard } from './answer-guard.js';
import type { RequestContext } from './context.js';
import type { RequestFilter } from './filters.js';

export interface DlpDeps {
  engine: DlpEngine;
  recognizers: readonly Recognizer[];
  /** The HMAC key surrogates derive from, made on first use. */
  key(): Promise<CryptoKey>;
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

/** Built-in tools a request carries outside the function list (Responses `web_search`, Anthropic server tools): by name, else type. */
function vendorToolNames(ir: IRRequest): string[] {
  const tools = ir.vendor?.fields['tools'];
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) => {
    if (typeof t !== 'object' || t === null) return [];
    const o = t as Record<string, unknown>;
    const name = typeof o['name'] === 'string' ? o['name'] : typeof o['type'] === 'string' ? o['type'] : undefined;
    return name === undefined ? [] : [name];
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
      return { ok: false, error: new GatewayError('permission_denied', `The tool '${name}' is not allowed for this caller.`, { param: 'tools' }), reason: `tool_not_allowed:${name}` };
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
            if (ok === undefined) allowed.set(name, (ok = decideTools({ policy, registry: input.registry, principal, model, tools: [name], enforcement: 'enforce' }).allowed));
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
    const enforce = (policy.enforcement ?? 'enforce') !== 'shadow';
    let result;
    try {
      const prepared = input.dlp.engine.prepare(policy, input.dlp.recognizers);
      result = await input.dlp.engine.apply(prepared, { policy, principal, ir, key: await input.dlp.key(), enforce });
    } catch (error) {
      const e = GatewayError.isInstance(error)
        ? error
        : new GatewayError('unavailable', 'A data-protection check could not complete; the request was not sent.', { cause: error });
      return { ok: false, error: e, reason: 'dlp_unavailable' };
    }
    ctx.dlp = result.counts;
    if (result.blocked !== null) {
      const reason = `dlp_block:${result.blocked}`;
      if (enforce) {
        return { ok: false, error: new GatewayError('invalid_request', `The request contains data the policy does not let leave (${result.blocked}); it was not sent.`), reason };
      }
      ctx.wouldBlock.push(reason);
    }
    ir = result.ir;
    reencode = result.scanned;
    guard = { ...guard, output: result.output === null ? null : input.dlp.engine.guardAnswer(result.output, enforce) };
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
