/**
 * The policy's content rules on a request: tool allow lists (a declared tool outside them is
 * refused, and the answer may call only tools they allow) and policy prompts (put before the
 * client's system prompt). Passed to the gateway as `options.content.engine` — `createGateway`
 * of `@tollgate/core` always does; `@tollgate/core/minimal` only when given, so a bundle that
 * enforces neither carries none of it, and refuses to start on a policy with tool allow lists
 * or prompts.
 */
import { GatewayError, type Request as IRRequest, type TextPart } from '@tollgate/codecs/base';
import { decidePrompts, decideTools } from '@tollgate/policy';
import { builtInTools } from '../gateway/built-in-tools.js';
import type { ContentEngine, ContentInput, ToolsResult } from '../gateway/policy-stage.js';

function tools(input: ContentInput): ToolsResult {
  const { policy, registry, principal, model, ir, ctx } = input;
  if ((policy.tools?.allow_lists ?? []).length === 0) return { ok: true, guard: null };
  const builtIn = builtInTools(ir);
  const named = builtIn.flatMap((t) => (t.name === null ? [] : [t.name]));
  const declared = [...ir.tools.map((t) => t.name), ...named];
  const d = decideTools({ policy, registry, principal, model, tools: declared });
  if (d.lists.length === 0) return { ok: true, guard: null };
  // A tool the gateway cannot name cannot be allowed: refused while a list applies.
  const unnamed = builtIn.find((t) => t.name === null);
  if (unnamed !== undefined) {
    const reason = 'tool_not_allowed:unnamed';
    if (!d.enforced) {
      if (!ctx.wouldBlock.includes(reason)) ctx.wouldBlock.push(reason);
    } else {
      const message = `The request declares a tool in '${unnamed.param}' that the gateway cannot name; it is not allowed for this caller.`;
      return { ok: false, error: new GatewayError('permission_denied', message, { param: unnamed.param }), reason };
    }
  }
  for (const name of d.wouldDeny) {
    const reason = `tool_not_allowed:${name}`;
    if (!ctx.wouldBlock.includes(reason)) ctx.wouldBlock.push(reason);
  }
  if (!d.allowed) {
    const name = d.denied[0]!;
    const param = builtIn.find((t) => t.name === name && !ir.tools.some((f) => f.name === name))?.param ?? 'tools';
    return {
      ok: false,
      error: new GatewayError('permission_denied', `The tool '${name}' is not allowed for this caller.`, { param }),
      reason: `tool_not_allowed:${name}`,
    };
  }
  const allowed = new Map<string, boolean>();
  return {
    ok: true,
    guard: {
      declared: new Set(declared),
      enforced: d.enforced,
      allowed(name) {
        let ok = allowed.get(name);
        if (ok === undefined) allowed.set(name, (ok = decideTools({ policy, registry, principal, model, tools: [name], enforcement: 'enforce' }).allowed));
        return ok;
      },
    },
  };
}

function prompts(input: ContentInput): IRRequest {
  const { policy, ir, ctx } = input;
  if ((policy.prompts ?? []).length === 0) return ir;
  const chosen = decidePrompts({ policy, registry: input.registry, principal: input.principal, model: input.model, format: input.format });
  if (chosen.length === 0) return ir;
  const parts: TextPart[] = chosen.map((p) => ({ type: 'text', text: p.text }));
  ctx.policyPrompts = chosen.map((p) => `${p.id}@${p.version}`);
  return { ...ir, system: [...parts, ...ir.system] };
}

/** Tool allow lists and policy prompts, for `createGateway` of `@tollgate/core/minimal` (`content: { engine: contentEngine }`). */
export const contentEngine: ContentEngine = { tools, prompts };
