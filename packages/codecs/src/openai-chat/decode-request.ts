/** A Chat Completions request body → the canonical request. */
import type { DecodedRequest, DecodeRequestOptions } from '../codec.js';
import type { ReasoningEffort, Request, ResponseFormat } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { bool, classifyFields, decodeMetadata, int, invalid, num, present, str } from '../shared/fields.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { functionTool, jsonSchemaFormat } from '../shared/openai-content.js';
import { lossy } from '../shared/warnings.js';
import { decodeMessages } from './decode-messages.js';
import { FORMAT, KNOWN_REQUEST_FIELD_SET, VENDOR_REQUEST_FIELDS } from './schemas.js';

const EFFORTS: ReadonlySet<string> = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);

export function decodeRequest(body: unknown, options: DecodeRequestOptions = {}): DecodedRequest {
  if (!isObject(body)) invalid('The request body must be a JSON object.', 'body');
  if (!Array.isArray(body.messages)) invalid('messages must be an array of messages.', 'messages');
  const warnings: ConversionWarning[] = [];
  const { system, messages } = decodeMessages(body.messages, warnings);

  const stream = bool(body, 'stream') ?? options.stream ?? false;
  const request: Request = { system, messages, tools: [], stream };
  const model = str(body, 'model') ?? options.model;
  if (model !== undefined) request.model = model;

  const vendor: JsonObject = {};
  request.tools = decodeTools(body, vendor, warnings);
  const toolChoice = decodeToolChoice(body, warnings);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  const parallel = bool(body, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;

  // Both given: an upstream may honour either, so the bound is the larger.
  const completion = int(body, 'max_completion_tokens');
  const legacy = int(body, 'max_tokens');
  const maxTokens = completion !== undefined && legacy !== undefined ? Math.max(completion, legacy) : (completion ?? legacy);
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  setNumber(request, 'temperature', num(body, 'temperature'));
  setNumber(request, 'topP', num(body, 'top_p'));
  setNumber(request, 'seed', int(body, 'seed'));
  setNumber(request, 'frequencyPenalty', num(body, 'frequency_penalty'));
  setNumber(request, 'presencePenalty', num(body, 'presence_penalty'));
  const stop = decodeStop(body.stop);
  if (stop !== undefined) request.stopSequences = stop;

  const responseFormat = decodeResponseFormat(body.response_format);
  if (responseFormat !== undefined) request.responseFormat = responseFormat;

  const effort = str(body, 'reasoning_effort');
  if (effort !== undefined) {
    if (EFFORTS.has(effort)) {
      request.reasoning = effort === 'none' ? { effort: 'none', enabled: false } : { effort: effort as ReasoningEffort };
    } else {
      warnings.push(lossy('reasoning_effort', `reasoning_effort ${JSON.stringify(effort)} is not a known level; it is only kept for OpenAI Chat.`));
      vendor.reasoning_effort = effort;
    }
  }

  const user = str(body, 'user');
  if (user !== undefined) request.user = user;
  const metadata = decodeMetadata(body.metadata);
  if (metadata !== undefined) request.metadata = metadata;
  const tier = str(body, 'service_tier');
  if (tier !== undefined) request.serviceTier = tier;

  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (!isObject(body.stream_options)) invalid('stream_options must be an object.', 'stream_options');
    const { include_usage: includeUsage, ...rest } = body.stream_options;
    if (includeUsage !== undefined && includeUsage !== null && typeof includeUsage !== 'boolean') {
      invalid('stream_options.include_usage must be a boolean.', 'stream_options.include_usage');
    }
    if (stream) request.includeUsage = includeUsage === true;
    if (Object.keys(rest).length > 0) vendor.stream_options = rest;
  } else if (stream) {
    request.includeUsage = false;
  }

  const fields = { known: KNOWN_REQUEST_FIELD_SET, vendor: VENDOR_REQUEST_FIELDS, formatName: 'OpenAI Chat' };
  const unclassified = classifyFields(body, fields, vendor, warnings);
  if (Object.keys(vendor).length > 0) request.vendor = { format: FORMAT, fields: vendor };
  return { request, warnings, unclassified };
}

function setNumber<K extends 'temperature' | 'topP' | 'seed' | 'frequencyPenalty' | 'presencePenalty'>(
  request: Request,
  key: K,
  value: number | undefined,
): void {
  if (value !== undefined) request[key] = value;
}

function decodeStop(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value;
  return invalid('stop must be a string or an array of strings.', 'stop');
}

function decodeResponseFormat(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) invalid('response_format must be an object.', 'response_format');
  if (value.type === 'text') return { type: 'text' };
  if (value.type === 'json_object') return { type: 'json' };
  if (value.type === 'json_schema') {
    const spec = isObject(value.json_schema) ? value.json_schema : undefined;
    if (spec === undefined) invalid('response_format.json_schema must be an object.', 'response_format.json_schema');
    return jsonSchemaFormat(spec, isObject(spec.schema) ? spec.schema : {});
  }
  return invalid('response_format.type must be text, json_object or json_schema.', 'response_format.type');
}

/**
 * Function tools into the IR; any other kind (`custom` free-form tools, say) is kept as it came
 * in `vendor.tools`, for an OpenAI Chat upstream only — and so tool allow lists see it.
 */
function decodeTools(body: JsonObject, vendor: JsonObject, warnings: ConversionWarning[]): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  if (present(body, 'tools')) {
    if (!Array.isArray(body.tools)) invalid('tools must be an array.', 'tools');
    const others: JsonObject[] = [];
    body.tools.forEach((tool, i) => {
      const path = `tools[${i}]`;
      if (!isObject(tool)) invalid(`${path} must be an object.`, path);
      if (tool.type !== 'function') {
        others.push(tool);
        warnings.push(lossy(path, `tool type ${JSON.stringify(tool.type)} has no IR equivalent; it is kept for OpenAI Chat and dropped for other formats.`));
        return;
      }
      if (!isObject(tool.function)) invalid(`${path}.function must be an object.`, `${path}.function`);
      tools.push(functionTool(tool.function, `${path}.function`));
    });
    if (others.length > 0) vendor.tools = others;
  }
  if (present(body, 'functions')) {
    if (!Array.isArray(body.functions)) invalid('functions must be an array.', 'functions');
    body.functions.forEach((fn, i) => {
      if (!isObject(fn)) invalid(`functions[${i}] must be an object.`, `functions[${i}]`);
      tools.push(functionTool(fn, `functions[${i}]`));
    });
  }
  return tools;
}

function decodeToolChoice(body: JsonObject, warnings: ConversionWarning[]): ToolChoice | undefined {
  const value = present(body, 'tool_choice') ? body.tool_choice : body.function_call;
  const param = present(body, 'tool_choice') ? 'tool_choice' : 'function_call';
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isObject(value)) {
    // Legacy `function_call: { name }` and `tool_choice: { type: 'function', function: { name } }`.
    const named = isObject(value.function) ? asString(value.function.name) : asString(value.name);
    if (named !== undefined && (value.type === 'function' || value.type === undefined)) return { type: 'tool', name: named };
    if (value.type === 'custom' && isObject(value.custom) && typeof value.custom.name === 'string') {
      return { type: 'tool', name: value.custom.name };
    }
    if (value.type === 'allowed_tools' && isObject(value.allowed_tools)) {
      warnings.push(lossy(param, 'allowed_tools was reduced to its mode; the tool subset has no IR equivalent.'));
      return { type: value.allowed_tools.mode === 'required' ? 'required' : 'auto' };
    }
  }
  return invalid(`${param} must be auto, none, required, or a named function.`, param);
}
