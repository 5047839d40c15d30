/** Anthropic Messages fields that change what a request costs beyond its canonical form. */
import { plainCost, type CostFields } from '../ir/cost.js';
import type { Request } from '../ir/request.js';
import { isObject } from '../shared/guards.js';
import { FORMAT } from './schemas.js';

/** Anthropic-defined tools the client runs: their definitions add a fixed system prompt, no per-call fee. */
export const CLIENT_TOOL = /^(bash|text_editor|computer|memory)_/;
/** The most prompt tokens such a tool adds (computer use: a system prompt plus its definition, under 1,300). */
export const CLIENT_TOOL_PROMPT_TOKENS = 2_000;

/**
 * - Server tools (web search, web fetch, code execution, tool search, …), `mcp_servers` and
 *   `container` run on the upstream inside the one request: billed per use, their results as
 *   input of further turns.
 * - Anthropic-defined client tools (bash, text editor, computer use, memory) add a fixed prompt.
 * - `speed` other than standard, `inference_geo` other than global: billed above the standard rates.
 * - `fallbacks`: another model may answer, at its own rates.
 */
export function costFields(request: Request): CostFields {
  const out = plainCost();
  const vendor = request.vendor;
  if (vendor === undefined || vendor.format !== FORMAT) return out;
  const f = vendor.fields;
  if (Array.isArray(f.tools)) {
    const seen = new Set<string>();
    for (const tool of f.tools) {
      const type = isObject(tool) && typeof tool.type === 'string' ? tool.type : 'unknown';
      if (CLIENT_TOOL.test(type)) {
        out.extraPromptTokens += CLIENT_TOOL_PROMPT_TOKENS;
        continue;
      }
      if (seen.has(type)) continue;
      seen.add(type);
      out.unbounded.push({
        field: `tools.${type}`,
        reason: `the server tool ${type} runs on the upstream: billed per use, its results as input of further turns, which max_tokens does not bound`,
      });
    }
  }
  const present = (key: string) => f[key] !== undefined && f[key] !== null;
  if (present('mcp_servers'))
    out.unbounded.push({ field: 'mcp_servers', reason: 'MCP tools run on the upstream and their results are billed as input of further turns' });
  if (present('container')) out.unbounded.push({ field: 'container', reason: 'a code-execution container is billed by the time it runs' });
  if (present('speed') && f.speed !== 'standard') out.unbounded.push({ field: 'speed', reason: 'faster output is billed above the rates the registry prices' });
  if (present('inference_geo') && f.inference_geo !== 'global')
    out.unbounded.push({ field: 'inference_geo', reason: 'pinned-region inference is billed above the rates the registry prices' });
  if (present('fallbacks')) out.unbounded.push({ field: 'fallbacks', reason: 'another model may answer, at rates the reservation did not cover' });
  return out;
}
