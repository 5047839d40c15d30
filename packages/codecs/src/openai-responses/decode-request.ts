/** A Responses request body → the canonical request. */
import type { DecodedRequest, DecodeRequestOptions } from '../codec.js';
import type { TextPart } from '../ir/content.js';
import type { ReasoningConfig, ReasoningEffort, Request, ResponseFormat } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { bool, classifyFields, decodeMetadata, int, invalid, num, present, str } from '../shared/fields.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { functionTool, jsonSchemaFormat } from '../shared/openai-content.js';
import { lossy } from '../shared/warnings.js';
import { decodeInput } from './decode-input.js';
import { FORMAT, KNOWN_REQUEST_FIELD_SET, VENDOR_REQUEST_FIELDS } from './schemas.js';

const EFFORTS: ReadonlySet<string> = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
const SUMMARIES: ReadonlySet<string> = new Set(['auto', 'concise', 'detailed']);

export function decodeRequest(body: unknown, options: DecodeRequestOptions = {}): DecodedRequest {
  if (!isObject(body)) invalid('The request body must be a JSON object.', 'body');
  const warnings: ConversionWarning[] = [];
  const vendor: JsonObject = {};
  const input = decodeInput(body.input, warnings);
  if (input.kept.length > 0) vendor.input = input.kept;

  const system: TextPart[] = [];
  const instructions = str(body, 'instructions');
  if (instructions !== undefined) system.push({ type: 'text', text: instructions });
  system.push(...input.system);

  const stream = bool(body, 'stream') ?? options.stream ?? false;
  const request: Request = { system, messages: input.messages, tools: decodeTools(body, vendor), stream };
  const model = str(body, 'model') ?? options.model;
  if (model !== undefined) request.model = model;
  // Every Responses stream ends with the full response and its usage.
  if (stream) request.includeUsage = true;

  const toolChoice = decodeToolChoice(body.tool_choice, vendor, warnings);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  const parallel = bool(body, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const maxTokens = int(body, 'max_output_tokens');
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const temperature = num(body, 'temperature');
  if (temperature !== undefined) request.temperature = temperature;
  const topP = num(body, 'top_p');
  if (topP !== undefined) request.topP = topP;

  const responseFormat = decodeText(body.text, vendor);
  if (responseFormat !== undefined) request.responseFormat = responseFormat;
  const reasoning = decodeReasoning(body.reasoning, vendor, warnings);
  if (reasoning !== undefined) request.reasoning = reasoning;

  const user = str(body, 'user');
  if (user !== undefined) request.user = user;
  const metadata = decodeMetadata(body.metadata);
  if (metadata !== undefined) request.metadata = metadata;
  const tier = str(body, 'service_tier');
  if (tier !== undefined) request.serviceTier = tier;

  const fields = { known: KNOWN_REQUEST_FIELD_SET, vendor: VENDOR_REQUEST_FIELDS, formatName: 'OpenAI Responses' };
  const unclassified = classifyFields(body, fields, vendor, warnings);
  if (Object.keys(vendor).length > 0) request.vendor = { format: FORMAT, fields: vendor };
  return { request, warnings, unclassified };
}

/** Function tools go to the IR; built-in and custom tools stay in `vendor.tools`. */
function decodeTools(body: JsonObject, vendor: JsonObject): ToolDefinition[] {
  if (!present(body, 'tools')) return [];
  if (!Array.isArray(body.tools)) invalid('tools must be an array.', 'tools');
  const tools: ToolDefinition[] = [];
  const others: JsonObject[] = [];
  body.tools.forEach((tool, i) => {
    const path = `tools[${i}]`;
    if (!isObject(tool)) invalid(`${path} must be an object.`, path);
    if (tool.type !== 'function') {
      if (typeof tool.type !== 'string') invalid(`${path}.type must be a string.`, `${path}.type`);
      others.push(tool);
      return;
    }
    // The Chat Completions shape ({ function: {...} }) is accepted too.
    tools.push(functionTool(isObject(tool.function) ? tool.function : tool, path));
  });
  if (others.length > 0) vendor.tools = others;
  return tools;
}

function decodeToolChoice(value: unknown, vendor: JsonObject, warnings: ConversionWarning[]): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isObject(value) && typeof value.type === 'string') {
    const name = asString(value.name) ?? (isObject(value.function) ? asString(value.function.name) : undefined);
    if (value.type === 'function' && name !== undefined) return { type: 'tool', name };
    // allowed_tools, a built-in tool, an MCP server or a custom tool: kept verbatim for Responses.
    vendor.tool_choice = value;
    if (value.type === 'allowed_tools') {
      warnings.push(lossy('tool_choice', 'allowed_tools was reduced to its mode for other formats; the tool subset has no IR equivalent.'));
      return { type: value.mode === 'required' ? 'required' : 'auto' };
    }
    return undefined;
  }
  return invalid('tool_choice must be auto, none, required, or a tool choice object.', 'tool_choice');
}

/** `text.format` → the response format; other `text` settings (verbosity) stay vendor fields. */
function decodeText(value: unknown, vendor: JsonObject): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) invalid('text must be an object.', 'text');
  const { format, ...rest } = value;
  if (Object.keys(rest).length > 0) vendor.text = rest;
  if (format === undefined || format === null) return undefined;
  if (!isObject(format)) invalid('text.format must be an object.', 'text.format');
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json' };
  if (format.type === 'json_schema') {
    if (!isObject(format.schema)) invalid('text.format.schema must be a JSON Schema object.', 'text.format.schema');
    return jsonSchemaFormat(format, format.schema);
  }
  return invalid('text.format.type must be text, json_object or json_schema.', 'text.format.type');
}

function decodeReasoning(value: unknown, vendor: JsonObject, warnings: ConversionWarning[]): ReasoningConfig | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) invalid('reasoning must be an object.', 'reasoning');
  const { effort, summary, ...rest } = value;
  const out: ReasoningConfig = {};
  if (typeof effort === 'string' && EFFORTS.has(effort)) {
    out.effort = effort as ReasoningEffort;
    if (effort === 'none') out.enabled = false;
  } else if (effort !== undefined && effort !== null) {
    warnings.push(lossy('reasoning.effort', `reasoning.effort ${JSON.stringify(effort)} is not a known level; it is only kept for OpenAI Responses.`));
    rest.effort = effort;
  }
  if (typeof summary === 'string' && SUMMARIES.has(summary)) out.summary = summary as 'auto' | 'concise' | 'detailed';
  else if (summary !== undefined && summary !== null) rest.summary = summary;
  if (Object.keys(rest).length > 0) vendor.reasoning = rest;
  return Object.keys(out).length > 0 ? out : undefined;
}
