/** The canonical request → a Responses request body for an upstream. */
import type { EncodedRequest, EncodeRequestOptions } from '../codec.js';
import type { ReasoningConfig, Request, ResponseFormat } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { effortForBudget, ownVendorFields } from '../shared/fields.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { jsonSchemaSpec } from '../shared/openai-content.js';
import { dropped, lossy } from '../shared/warnings.js';
import { encodeInput, encodeInstructions } from './encode-input.js';
import { FORMAT, spliceKept } from './schemas.js';

export function encodeRequest(request: Request, options: EncodeRequestOptions = {}): EncodedRequest {
  const warnings: ConversionWarning[] = [];
  const vendor = ownVendorFields(request, FORMAT, 'OpenAI Responses', warnings);
  const body: JsonObject = {};
  const model = options.model ?? request.model;
  if (model !== undefined) body.model = model;
  const instructions = encodeInstructions(request.system, warnings);
  if (instructions !== undefined) body.instructions = instructions;
  body.input = spliceKept(encodeInput(request.messages, warnings), vendor.input);
  delete vendor.input;

  const tools: unknown[] = request.tools.map((tool, i) => encodeTool(tool, `tools[${i}]`, warnings));
  if (Array.isArray(vendor.tools)) tools.push(...(vendor.tools as unknown[]));
  delete vendor.tools;
  if (tools.length > 0) body.tools = tools;
  // A choice with no IR form (a built-in tool, allowed_tools) is only kept for Responses.
  if (vendor.tool_choice !== undefined) body.tool_choice = vendor.tool_choice;
  else if (request.toolChoice !== undefined) body.tool_choice = encodeToolChoice(request.toolChoice);
  delete vendor.tool_choice;
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;

  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) warnings.push(dropped('topK', 'OpenAI Responses has no top_k'));
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    warnings.push(dropped('stopSequences', 'OpenAI Responses has no stop sequences'));
  }
  if (request.seed !== undefined) warnings.push(dropped('seed', 'OpenAI Responses has no seed'));
  if (request.frequencyPenalty !== undefined) warnings.push(dropped('frequencyPenalty', 'OpenAI Responses has no frequency_penalty'));
  if (request.presencePenalty !== undefined) warnings.push(dropped('presencePenalty', 'OpenAI Responses has no presence_penalty'));

  const text: JsonObject = isObject(vendor.text) ? { ...vendor.text } : {};
  if (request.responseFormat !== undefined) text.format = encodeResponseFormat(request.responseFormat);
  if (Object.keys(text).length > 0) body.text = text;
  delete vendor.text;
  const reasoning: JsonObject = isObject(vendor.reasoning) ? { ...vendor.reasoning } : {};
  if (request.reasoning !== undefined) Object.assign(reasoning, encodeReasoning(request.reasoning, warnings));
  if (Object.keys(reasoning).length > 0) body.reasoning = reasoning;
  delete vendor.reasoning;

  if (request.user !== undefined) body.user = request.user;
  if (request.metadata !== undefined) body.metadata = request.metadata;
  if (request.serviceTier !== undefined) body.service_tier = request.serviceTier;
  if (options.stream ?? request.stream) body.stream = true;
  for (const [key, value] of Object.entries(vendor)) if (body[key] === undefined) body[key] = value;
  return { body, warnings };
}

function encodeTool(tool: ToolDefinition, path: string, warnings: ConversionWarning[]): JsonObject {
  const out: JsonObject = { type: 'function', name: tool.name };
  if (tool.description !== undefined) out.description = tool.description;
  out.parameters = tool.parameters;
  if (tool.strict !== undefined) out.strict = tool.strict;
  if (tool.cacheControl !== undefined) warnings.push(dropped(`${path}.cacheControl`, 'OpenAI Responses tools take no cache_control'));
  return out;
}

function encodeToolChoice(choice: ToolChoice): unknown {
  if (choice.type === 'tool') return { type: 'function', name: choice.name };
  return choice.type;
}

function encodeResponseFormat(format: ResponseFormat): JsonObject {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json') return { type: 'json_object' };
  // Flat, unlike Chat's `json_schema: { … }`.
  return { type: 'json_schema', ...jsonSchemaSpec(format) };
}

/** `reasoning` from the canonical settings; a token budget maps to the nearest effort level. */
function encodeReasoning(reasoning: ReasoningConfig, warnings: ConversionWarning[]): JsonObject {
  const out: JsonObject = {};
  if (reasoning.effort !== undefined) out.effort = reasoning.effort;
  else if (reasoning.enabled !== false && reasoning.budgetTokens !== undefined) {
    const budget = reasoning.budgetTokens;
    const effort = effortForBudget(budget);
    warnings.push(lossy('reasoning.budgetTokens', `A thinking budget of ${budget} tokens was sent as reasoning.effort ${effort}.`));
    out.effort = effort;
  }
  // Gemini's includeThoughts asks for thought summaries: the Responses equivalent is summary "auto".
  if (reasoning.summary !== undefined) out.summary = reasoning.summary;
  else if (reasoning.includeThoughts === true) out.summary = 'auto';
  return out;
}
