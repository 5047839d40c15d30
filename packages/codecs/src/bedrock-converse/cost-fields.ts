/** Bedrock Converse fields that change what a request costs beyond its canonical form. */
import { CLIENT_TOOL, CLIENT_TOOL_PROMPT_TOKENS } from '../anthropic-messages/cost-fields.js';
import { plainCost, type CostFields } from '../ir/cost.js';
import type { Request } from '../ir/request.js';
import { isObject } from '../shared/guards.js';
import { FORMAT, memberOf } from './schemas.js';

/** Keys of `additionalModelRequestFields` that change nothing the registry prices. */
const PLAIN_ADDITIONAL = new Set(['anthropic_version', 'stop_sequences', 'top_p', 'temperature']);

/**
 * - `serviceTier: { type: "priority" }` and `performanceConfig.latency: "optimized"`: billed above
 *   the standard rates.
 * - `guardrailConfig`: guardrail policies are billed per text unit, at rates the registry does
 *   not price.
 * - `promptVariables`: the model id names a managed prompt whose text the body does not hold.
 * - System tools (`toolConfig.tools[].systemTool`, e.g. Nova web grounding) run on the upstream:
 *   billed per use, their results as input.
 * - `additionalModelRequestFields` holds the model's own fields, passed through unread by
 *   Bedrock: Anthropic's client tools there add a fixed prompt, its server tools and the 1M
 *   context beta are billed beyond the bound, and a field the gateway does not know may change
 *   anything, so it is not taken as bounded.
 */
export function costFields(request: Request): CostFields {
  const out = plainCost();
  if (request.serviceTier === 'priority') {
    out.unbounded.push({ field: 'serviceTier', reason: 'the priority tier is billed above the rates the registry prices' });
  }
  const vendor = request.vendor;
  if (vendor === undefined || vendor.format !== FORMAT) return out;
  const f = vendor.fields;
  const present = (key: string) => f[key] !== undefined && f[key] !== null;

  const performance = f['performanceConfig'];
  if (isObject(performance) && performance['latency'] !== undefined && performance['latency'] !== 'standard') {
    out.unbounded.push({ field: 'performanceConfig.latency', reason: 'latency-optimized inference is billed above the rates the registry prices' });
  }
  if (present('guardrailConfig'))
    out.unbounded.push({ field: 'guardrailConfig', reason: 'guardrail policies are billed per text unit, at rates the registry does not price' });
  if (present('promptVariables'))
    out.unsizedInput.push({ field: 'promptVariables', reason: 'the model id names a managed prompt, whose text the upstream adds to the input' });

  const toolConfig = f['toolConfig'];
  if (isObject(toolConfig) && Array.isArray(toolConfig['tools'])) {
    const seen = new Set<string>();
    for (const tool of toolConfig['tools']) {
      if (!isObject(tool) || memberOf(tool) !== 'systemTool') continue;
      const name = isObject(tool['systemTool']) && typeof tool['systemTool']['name'] === 'string' ? tool['systemTool']['name'] : 'unknown';
      if (seen.has(name)) continue;
      seen.add(name);
      out.unbounded.push({
        field: `toolConfig.tools.systemTool.${name}`,
        reason: `the system tool ${name} runs on the upstream: billed per use, its results as input, which maxTokens does not bound`,
      });
    }
  }

  const additional = f['additionalModelRequestFields'];
  if (isObject(additional)) {
    for (const [key, value] of Object.entries(additional)) {
      if (PLAIN_ADDITIONAL.has(key)) continue;
      if (key === 'anthropic_beta') {
        const betas = Array.isArray(value) ? value.map(String) : [String(value)];
        if (betas.some((b) => b.startsWith('context-1m'))) {
          out.unbounded.push({
            field: 'additionalModelRequestFields.anthropic_beta',
            reason: 'the 1M-token context is billed at long-context rates the registry does not price',
          });
        }
        continue;
      }
      if (key === 'tools' && Array.isArray(value)) {
        for (const tool of value) {
          const type = isObject(tool) && typeof tool['type'] === 'string' ? tool['type'] : 'unknown';
          if (CLIENT_TOOL.test(type)) out.extraPromptTokens += CLIENT_TOOL_PROMPT_TOKENS;
          else
            out.unbounded.push({
              field: `additionalModelRequestFields.tools.${type}`,
              reason: `the server tool ${type} runs on the upstream: billed per use, which maxTokens does not bound`,
            });
        }
        continue;
      }
      out.unbounded.push({
        field: `additionalModelRequestFields.${key}`,
        reason: 'a model-specific field the gateway does not know: what it does to the cost cannot be bounded',
      });
    }
  }
  return out;
}
