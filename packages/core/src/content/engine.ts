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
import type { ContentEngine, ContentInput, ToolsResult } from '../gateway/policy-stage.js';

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

function tools(input: ContentInput): ToolsResult {
  const { policy, registry, principal, model, ir, ctx } = input;
  if ((policy.tools?.allow_lists ?? []).length === 0) return { ok: true, guard: null };
  const declared = [...ir.tools.map((t) => t.name), ...vendorToolNames(ir)];
  const d = decideTools({ policy, registry, principal, model, tools: declared });
  for (const name of d.wouldDeny) {
    const reason = `tool_not_allowed:${name}`;
    if (!ctx.wouldBlock.includes(reason)) ctx.wouldBlock.push(reason);
  }
  if (!d.allowed) {
    const name = d.denied[0]!;
    return {
      ok: false,
      error: new GatewayError('permission_denied', `The tool '${name}' is not allowed for this caller.`, { param: 'tools' }),
      reason: `tool_not_allowed:${name}`,
    };
  }
  if (d.lists.length === 0) return { ok: true, guard: null };
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
