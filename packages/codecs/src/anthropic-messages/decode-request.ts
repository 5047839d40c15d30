/** Anthropic Messages request body → canonical request. */
import type { DecodedRequest, DecodeRequestOptions } from '../codec.js';
import type { AssistantContentPart, TextPart, ToolResultPart, UserContentPart } from '../ir/content.js';
import type { Message } from '../ir/message.js';
import type { ReasoningConfig, Request } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, asNumber, asString, isObject, type JsonObject } from '../shared/guards.js';
import { decodeAssistantBlock, decodeUserBlock, invalid, type DecodeContext } from './decode-content.js';
import { cacheOf, FORMAT, IR_REQUEST_FIELDS, isBlock, VENDOR_REQUEST_FIELDS } from './schemas.js';

const IR_FIELDS = new Set<string>(IR_REQUEST_FIELDS);
const VENDOR_FIELDS = new Set<string>(VENDOR_REQUEST_FIELDS);

export function decodeRequest(body: unknown, options: DecodeRequestOptions = {}): DecodedRequest {
  if (!isObject(body)) throw invalid('body', 'the request body must be a JSON object');
  const warnings: ConversionWarning[] = [];
  const ctx: DecodeContext = { strict: true, warnings };
  const vendor: JsonObject = {};
  const unclassified: string[] = [];

  const request: Request = {
    system: decodeSystem(body['system']),
    messages: decodeMessages(body['messages'], ctx),
    tools: [],
    stream: decodeStream(body['stream'], options.stream),
  };
  const model = body['model'] === undefined ? options.model : asString(body['model']);
  if (body['model'] !== undefined && model === undefined) throw invalid('model', 'must be a string');
  if (model !== undefined) request.model = model;

  const maxTokens = optionalNumber(body, 'max_tokens', true);
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const temperature = optionalNumber(body, 'temperature');
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(body, 'top_p');
  if (topP !== undefined) request.topP = topP;
  const topK = optionalNumber(body, 'top_k', true);
  if (topK !== undefined) request.topK = topK;

  if (body['stop_sequences'] !== undefined && body['stop_sequences'] !== null) {
    const stops = asArray(body['stop_sequences']);
    if (stops === undefined || !stops.every((s) => typeof s === 'string')) throw invalid('stop_sequences', 'must be an array of strings');
    request.stopSequences = stops;
  }

  decodeMetadata(body['metadata'], request, vendor);
  decodeTools(body['tools'], request, vendor, warnings);
  decodeToolChoice(body['tool_choice'], request);
  const reasoning = decodeThinking(body['thinking']);
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (body['service_tier'] !== undefined && body['service_tier'] !== null) {
    const tier = asString(body['service_tier']);
    if (tier === undefined) throw invalid('service_tier', 'must be a string');
    request.serviceTier = tier;
  }

  for (const key of Object.keys(body)) {
    if (IR_FIELDS.has(key)) continue;
    vendor[key] = body[key];
    if (VENDOR_FIELDS.has(key)) continue;
    unclassified.push(key);
    warnings.push({ code: 'unclassified_field', path: key, message: `${key} is not a known anthropic_messages request field.` });
  }
  // Always set, even when empty: it also records that the request came from an Anthropic client,
  // so values that only Anthropic understands (strict tools, exact thinking budgets) are re-sent as-is.
  request.vendor = { format: FORMAT, fields: vendor };
  return { request, warnings, unclassified };
}

function optionalNumber(body: JsonObject, key: string, integer = false): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  const n = asNumber(value);
  if (n === undefined || n < 0 || (integer && !Number.isInteger(n))) {
    throw invalid(key, integer ? 'must be a non-negative integer' : 'must be a non-negative number');
  }
  return n;
}

function decodeStream(value: unknown, fallback: boolean | undefined): boolean {
  if (value === undefined || value === null) return fallback ?? false;
  if (typeof value !== 'boolean') throw invalid('stream', 'must be a boolean');
  return value;
}

function decodeSystem(system: unknown): TextPart[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return system.length === 0 ? [] : [{ type: 'text', text: system }];
  const blocks = asArray(system);
  if (blocks === undefined) throw invalid('system', 'must be a string or an array of text blocks');
  return blocks.map((block, i) => {
    if (!isBlock(block) || block.type !== 'text' || typeof block['text'] !== 'string') {
      throw invalid(`system[${i}]`, 'must be a text block');
    }
    return { type: 'text', text: block['text'], ...cacheOf(block) };
  });
}

function decodeMessages(value: unknown, ctx: DecodeContext): Message[] {
  const list = asArray(value);
  if (list === undefined) throw invalid('messages', 'must be an array of messages');
  const out: Message[] = [];
  list.forEach((msg, i) => {
    const path = `messages[${i}]`;
    if (!isObject(msg)) throw invalid(path, 'must be an object with role and content');
    const role = msg['role'];
    const content = msg['content'];
    const blocks: unknown[] | undefined = typeof content === 'string' ? [{ type: 'text', text: content }] : asArray(content);
    if (blocks === undefined) throw invalid(`${path}.content`, 'must be a string or an array of content blocks');
    if (role === 'user') out.push(...splitUserTurn(blocks, `${path}.content`, ctx));
    else if (role === 'assistant') {
      const parts: AssistantContentPart[] = [];
      blocks.forEach((b, j) => {
        const part = decodeAssistantBlock(b, `${path}.content[${j}]`, ctx);
        if (part !== undefined) parts.push(part);
      });
      out.push({ role: 'assistant', content: parts });
    } else throw invalid(`${path}.role`, 'must be "user" or "assistant"');
  });
  return out;
}

/** A user turn: its tool results become a `tool` message placed before the rest. */
function splitUserTurn(blocks: unknown[], path: string, ctx: DecodeContext): Message[] {
  const results: ToolResultPart[] = [];
  const rest: UserContentPart[] = [];
  blocks.forEach((b, j) => {
    const part = decodeUserBlock(b, `${path}[${j}]`, ctx);
    if (part === undefined) return;
    if (part.type === 'tool_result') results.push(part);
    else rest.push(part);
  });
  const out: Message[] = [];
  if (results.length > 0) out.push({ role: 'tool', content: results });
  if (rest.length > 0 || results.length === 0) out.push({ role: 'user', content: rest });
  return out;
}

function decodeMetadata(value: unknown, request: Request, vendor: JsonObject): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('metadata', 'must be an object');
  const extra: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'user_id' && typeof v === 'string') request.user = v;
    else if (key === 'user_id' && v === null) continue;
    else extra[key] = v;
  }
  if (Object.keys(extra).length > 0) vendor['metadata'] = extra;
}

function decodeTools(value: unknown, request: Request, vendor: JsonObject, warnings: ConversionWarning[]): void {
  if (value === undefined || value === null) return;
  const list = asArray(value);
  if (list === undefined) throw invalid('tools', 'must be an array');
  const serverTools: unknown[] = [];
  list.forEach((tool, i) => {
    const path = `tools[${i}]`;
    if (!isObject(tool)) throw invalid(path, 'must be an object');
    const type = tool['type'];
    if (type !== undefined && type !== null && type !== 'custom') {
      serverTools.push(tool);
      warnings.push({
        code: 'unsupported_feature',
        path,
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- names the tool's `type` as it came
        message: `${path} is an Anthropic server tool (${String(type)}); it is kept for anthropic_messages and dropped for other formats.`,
      });
      return;
    }
    request.tools.push(decodeTool(tool, path, warnings));
  });
  if (serverTools.length > 0) vendor['tools'] = serverTools;
}

const TOOL_KEYS = new Set(['type', 'name', 'description', 'input_schema', 'cache_control', 'strict']);

function decodeTool(tool: JsonObject, path: string, warnings: ConversionWarning[]): ToolDefinition {
  const name = asString(tool['name']);
  if (name === undefined || name.length === 0) throw invalid(`${path}.name`, 'must be a non-empty string');
  const schema = tool['input_schema'];
  if (!isObject(schema)) throw invalid(`${path}.input_schema`, 'must be a JSON Schema object');
  const def: ToolDefinition = { type: 'function', name, parameters: schema, ...cacheOf(tool) };
  const description = asString(tool['description']);
  if (description !== undefined) def.description = description;
  if (typeof tool['strict'] === 'boolean') def.strict = tool['strict'];
  for (const key of Object.keys(tool)) {
    if (!TOOL_KEYS.has(key)) warnings.push({ code: 'dropped_field', path: `${path}.${key}`, message: `${path}.${key} has no canonical form; it was dropped.` });
  }
  return def;
}

function decodeToolChoice(value: unknown, request: Request): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('tool_choice', 'must be an object');
  let choice: ToolChoice;
  switch (value['type']) {
    case 'auto':
      choice = { type: 'auto' };
      break;
    case 'any':
      choice = { type: 'required' };
      break;
    case 'none':
      choice = { type: 'none' };
      break;
    case 'tool': {
      const name = asString(value['name']);
      if (name === undefined) throw invalid('tool_choice.name', 'must be a string');
      choice = { type: 'tool', name };
      break;
    }
    default:
      throw invalid('tool_choice.type', 'must be one of auto, any, tool, none');
  }
  request.toolChoice = choice;
  if (value['disable_parallel_tool_use'] === true) request.parallelToolCalls = false;
}

function decodeThinking(value: unknown): ReasoningConfig | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalid('thinking', 'must be an object');
  switch (value['type']) {
    case 'enabled': {
      const budget = asNumber(value['budget_tokens']);
      if (budget === undefined || !Number.isInteger(budget) || budget < 0) {
        throw invalid('thinking.budget_tokens', 'must be a non-negative integer');
      }
      return { enabled: true, budgetTokens: budget };
    }
    case 'disabled':
      return { enabled: false };
    case 'adaptive':
      return { enabled: true };
    default:
      throw invalid('thinking.type', 'must be one of enabled, disabled, adaptive');
  }
}
