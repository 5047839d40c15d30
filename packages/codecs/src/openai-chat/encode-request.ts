/** The canonical request → a Chat Completions request body for an upstream. */
import type { EncodedRequest, EncodeRequestOptions } from '../codec.js';
import type { ReasoningConfig, Request, ResponseFormat } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { effortForBudget, ownVendorFields } from '../shared/fields.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { jsonSchemaSpec } from '../shared/openai-content.js';
import { dropped, lossy } from '../shared/warnings.js';
import { encodeMessages } from './encode-messages.js';
import { FORMAT } from './schemas.js';

export function encodeRequest(request: Request, options: EncodeRequestOptions = {}): EncodedRequest {
  const warnings: ConversionWarning[] = [];
  const body: JsonObject = {};
  const model = options.model ?? request.model;
  if (model !== undefined) body.model = model;
  body.messages = encodeMessages(request.system, request.messages, warnings);

  if (request.tools.length > 0) body.tools = request.tools.map((tool, i) => encodeTool(tool, `tools[${i}]`, warnings));
  if (request.toolChoice !== undefined) body.tool_choice = encodeToolChoice(request.toolChoice);
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;

  if (request.maxTokens !== undefined) body.max_completion_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) warnings.push(dropped('topK', 'OpenAI Chat has no top_k'));
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) body.stop = request.stopSequences;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.responseFormat !== undefined) body.response_format = encodeResponseFormat(request.responseFormat);
  if (request.reasoning !== undefined) {
    const effort = encodeReasoning(request.reasoning, warnings);
    if (effort !== undefined) body.reasoning_effort = effort;
  }
  if (request.user !== undefined) body.user = request.user;
  if (request.metadata !== undefined) body.metadata = request.metadata;
  if (request.serviceTier !== undefined) body.service_tier = request.serviceTier;

  const vendor = ownVendorFields(request, FORMAT, 'OpenAI Chat', warnings);
  const stream = options.stream ?? request.stream;
  if (stream) {
    body.stream = true;
    // The gateway meters usage, so it always asks; the client-facing side strips it again.
    const extra = isObject(vendor.stream_options) ? vendor.stream_options : {};
    body.stream_options = { ...extra, include_usage: true };
  }
  delete vendor.stream_options;
  // Tools with no IR form (custom tools) go after the function tools.
  if (Array.isArray(vendor.tools)) body.tools = [...(Array.isArray(body.tools) ? (body.tools as unknown[]) : []), ...(vendor.tools as unknown[])];
  delete vendor.tools;
  for (const [key, value] of Object.entries(vendor)) if (body[key] === undefined) body[key] = value;
  return { body, warnings };
}

function encodeTool(tool: ToolDefinition, path: string, warnings: ConversionWarning[]): JsonObject {
  const fn: JsonObject = { name: tool.name };
  if (tool.description !== undefined) fn.description = tool.description;
  fn.parameters = tool.parameters;
  if (tool.strict !== undefined) fn.strict = tool.strict;
  if (tool.cacheControl !== undefined) warnings.push(dropped(`${path}.cacheControl`, 'OpenAI Chat tools take no cache_control'));
  return { type: 'function', function: fn };
}

function encodeToolChoice(choice: ToolChoice): unknown {
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name } };
  return choice.type;
}

function encodeResponseFormat(format: ResponseFormat): JsonObject {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json') return { type: 'json_object' };
  return { type: 'json_schema', json_schema: jsonSchemaSpec(format) };
}

/** `reasoning_effort` from the canonical reasoning settings; a token budget maps to the nearest level. */
function encodeReasoning(reasoning: ReasoningConfig, warnings: ConversionWarning[]): string | undefined {
  if (reasoning.summary !== undefined) warnings.push(dropped('reasoning.summary', 'OpenAI Chat returns no reasoning summaries'));
  if (reasoning.includeThoughts !== undefined) warnings.push(dropped('reasoning.includeThoughts', 'OpenAI Chat has no such setting'));
  if (reasoning.effort !== undefined) return reasoning.effort;
  if (reasoning.enabled === false) return undefined;
  if (reasoning.budgetTokens !== undefined) {
    const budget = reasoning.budgetTokens;
    const effort = effortForBudget(budget);
    warnings.push(lossy('reasoning.budgetTokens', `A thinking budget of ${budget} tokens was sent as reasoning_effort ${effort}.`));
    return effort;
  }
  return undefined;
}
