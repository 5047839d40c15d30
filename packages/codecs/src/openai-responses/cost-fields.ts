/** OpenAI Responses fields that change what a request costs beyond its canonical form. */
import { plainCost, type CostFields } from '../ir/cost.js';
import type { Request } from '../ir/request.js';
import { isObject } from '../shared/guards.js';
import { FORMAT } from './schemas.js';

/** Tools the client runs (the model only asks for a call): billed as tokens, like function tools. */
const CLIENT_TOOLS: ReadonlySet<string> = new Set(['function', 'custom', 'local_shell', 'shell', 'apply_patch', 'computer_use_preview', 'computer_use']);

/**
 * - Built-in tools (web and file search, code interpreter, image generation, remote MCP, …) run
 *   on the upstream inside the one request: each call is billed, and its results are billed
 *   as input of further model turns, so neither `max_output_tokens` nor `max_tool_calls` bounds
 *   the cost.
 * - `previous_response_id`, `conversation`, `prompt` and `item_reference` inputs make the upstream
 *   read stored input the body does not hold.
 * - `background: true` is billed after the call returns, with usage the gateway never sees.
 * - `service_tier: "priority"` is billed above the standard rates.
 */
export function costFields(request: Request): CostFields {
  const out = plainCost();
  if (request.serviceTier === 'priority') {
    out.unbounded.push({ field: 'service_tier', reason: 'priority processing is billed above the rates the registry prices' });
  }
  const vendor = request.vendor;
  if (vendor === undefined || vendor.format !== FORMAT) return out;
  const f = vendor.fields;
  if (Array.isArray(f.tools)) {
    const seen = new Set<string>();
    for (const tool of f.tools) {
      const type = isObject(tool) && typeof tool.type === 'string' ? tool.type : 'unknown';
      if (CLIENT_TOOLS.has(type) || seen.has(type)) continue;
      seen.add(type);
      out.unbounded.push({
        field: `tools.${type}`,
        reason: `the built-in tool ${type} runs on the upstream: each call is billed, and its results are billed as input of further turns, which neither max_output_tokens nor max_tool_calls bounds`,
      });
    }
  }
  if (f.background === true) {
    out.unbounded.push({ field: 'background', reason: 'a background response is billed after the call returns, with usage the gateway never sees' });
  }
  if (typeof f.previous_response_id === 'string' && f.previous_response_id !== '') {
    out.unsizedInput.push({ field: 'previous_response_id', reason: 'the upstream adds the stored conversation to the input' });
  }
  if (f.conversation !== undefined && f.conversation !== null) {
    out.unsizedInput.push({ field: 'conversation', reason: 'the upstream adds the stored conversation to the input' });
  }
  if (f.prompt !== undefined && f.prompt !== null) {
    out.unsizedInput.push({ field: 'prompt', reason: 'the upstream adds a stored prompt template to the input' });
  }
  if (Array.isArray(f.input) && f.input.some((kept) => isObject(kept) && isObject(kept.item) && kept.item.type === 'item_reference')) {
    out.unsizedInput.push({ field: 'input.item_reference', reason: 'the upstream adds stored items to the input' });
  }
  return out;
}
