/** Bedrock Converse request body → canonical request. The model and streaming come from the URL. */
import type { DecodedRequest, DecodeRequestOptions } from '../codec.js';
import type { Message } from '../ir/message.js';
import type { ReasoningConfig, Request } from '../ir/request.js';
import type { ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, asNumber, asString, isObject, type JsonObject } from '../shared/guards.js';
import { dropped } from '../shared/warnings.js';
import { decodeAssistantBlocks, decodeSystem, decodeUserBlocks } from './decode-content.js';
import { cachePointOf, FORMAT, invalid, IR_REQUEST_FIELDS, memberOf, VENDOR_REQUEST_FIELDS, type DecodeContext } from './schemas.js';

const IR_FIELDS = new Set<string>(IR_REQUEST_FIELDS);
const VENDOR_FIELDS = new Set<string>(VENDOR_REQUEST_FIELDS);

export function decodeRequest(body: unknown, options: DecodeRequestOptions = {}): DecodedRequest {
  if (!isObject(body)) throw invalid('body', 'the request body must be a JSON object');
  const warnings: ConversionWarning[] = [];
  const ctx: DecodeContext = { strict: true, warnings };
  const vendor: JsonObject = {};
  const unclassified: string[] = [];

  const request: Request = {
    system: decodeSystem(body['system'], ctx),
    messages: decodeMessages(body['messages'], ctx),
    tools: [],
    stream: options.stream ?? false,
  };
  if (options.model !== undefined) request.model = options.model;

  decodeInferenceConfig(body['inferenceConfig'], request);
  decodeToolConfig(body['toolConfig'], request, vendor, warnings);
  decodeAdditionalFields(body['additionalModelRequestFields'], request, vendor);
  decodeRequestMetadata(body['requestMetadata'], request);
  const tier = body['serviceTier'];
  if (tier !== undefined && tier !== null) {
    const type = isObject(tier) ? asString(tier['type']) : undefined;
    if (type === undefined) throw invalid('serviceTier.type', 'must be a string');
    request.serviceTier = type;
  }

  for (const [key, value] of Object.entries(body)) {
    if (IR_FIELDS.has(key)) continue;
    vendor[key] = value;
    if (VENDOR_FIELDS.has(key)) continue;
    unclassified.push(key);
    warnings.push({ code: 'unclassified_field', path: key, message: `${key} is not a known ${FORMAT} request field.` });
  }
  // Always set, even when empty: it records that the request came from a Bedrock client.
  request.vendor = { format: FORMAT, fields: vendor };
  return { request, warnings, unclassified };
}

/** Messages; a user turn's tool results become a `tool` message before the rest of the turn. */
function decodeMessages(value: unknown, ctx: DecodeContext): Message[] {
  const list = asArray(value);
  if (list === undefined) throw invalid('messages', 'must be an array of messages');
  const out: Message[] = [];
  list.forEach((msg, i) => {
    const path = `messages[${i}]`;
    if (!isObject(msg)) throw invalid(path, 'must be an object with role and content');
    const blocks = asArray(msg['content']);
    if (blocks === undefined) throw invalid(`${path}.content`, 'must be an array of content blocks');
    if (msg['role'] === 'assistant') {
      out.push({ role: 'assistant', content: decodeAssistantBlocks(blocks, `${path}.content`, ctx) });
    } else if (msg['role'] === 'user') {
      const parts = decodeUserBlocks(blocks, `${path}.content`, ctx);
      const results = parts.filter((p) => p.type === 'tool_result');
      const rest = parts.filter((p) => p.type !== 'tool_result');
      if (results.length > 0) out.push({ role: 'tool', content: results });
      if (rest.length > 0 || results.length === 0) out.push({ role: 'user', content: rest });
    } else throw invalid(`${path}.role`, 'must be "user" or "assistant"');
  });
  return out;
}

function number(config: JsonObject, key: string, integer: boolean): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  const n = asNumber(value);
  if (n === undefined || n < 0 || (integer && !Number.isInteger(n))) {
    throw invalid(`inferenceConfig.${key}`, integer ? 'must be a non-negative integer' : 'must be a non-negative number');
  }
  return n;
}

function decodeInferenceConfig(value: unknown, request: Request): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('inferenceConfig', 'must be an object');
  const maxTokens = number(value, 'maxTokens', true);
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const temperature = number(value, 'temperature', false);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = number(value, 'topP', false);
  if (topP !== undefined) request.topP = topP;
  const stops = value['stopSequences'];
  if (stops !== undefined && stops !== null) {
    const list = asArray(stops);
    if (list === undefined || !list.every((s) => typeof s === 'string')) throw invalid('inferenceConfig.stopSequences', 'must be an array of strings');
    request.stopSequences = list;
  }
  for (const key of Object.keys(value)) {
    if (!['maxTokens', 'temperature', 'topP', 'stopSequences'].includes(key)) throw invalid(`inferenceConfig.${key}`, 'is not an inference parameter');
  }
}

/**
 * Tool specs become canonical tools. Tools Bedrock defines and runs itself (`systemTool`, e.g.
 * Nova web grounding) have no canonical form: they stay with the request for Bedrock only, as
 * the vendor field `toolConfig` (`{ tools: [...] }`), so a Bedrock upstream still gets them and
 * what they cost is seen (`costFields`).
 */
function decodeToolConfig(value: unknown, request: Request, vendor: JsonObject, warnings: ConversionWarning[]): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('toolConfig', 'must be an object');
  const tools = asArray(value['tools']);
  if (tools === undefined) throw invalid('toolConfig.tools', 'must be an array');
  tools.forEach((tool, i) => {
    const path = `toolConfig.tools[${i}]`;
    if (!isObject(tool)) throw invalid(path, 'must be an object');
    const member = memberOf(tool);
    if (member === 'cachePoint') {
      const last = request.tools[request.tools.length - 1];
      const cache = cachePointOf(tool);
      if (last !== undefined && cache !== undefined) last.cacheControl = cache;
      else warnings.push(dropped(path, 'a cache point with no tool before it'));
      return;
    }
    if (member === 'systemTool') {
      const kept = isObject(vendor['toolConfig']) ? vendor['toolConfig'] : (vendor['toolConfig'] = { tools: [] });
      (kept['tools'] as unknown[]).push(tool);
      return;
    }
    if (member !== 'toolSpec') {
      warnings.push(dropped(path, `a ${member ?? 'malformed'} tool has no canonical form`));
      return;
    }
    request.tools.push(decodeToolSpec(tool['toolSpec'], `${path}.toolSpec`, warnings));
  });
  const choice = value['toolChoice'];
  if (choice !== undefined && choice !== null) {
    if (!isObject(choice)) throw invalid('toolConfig.toolChoice', 'must be an object');
    const kind = memberOf(choice);
    if (kind === 'auto') request.toolChoice = { type: 'auto' };
    else if (kind === 'any') request.toolChoice = { type: 'required' };
    else if (kind === 'tool') {
      const name = isObject(choice['tool']) ? asString(choice['tool']['name']) : undefined;
      if (name === undefined) throw invalid('toolConfig.toolChoice.tool.name', 'must be a string');
      request.toolChoice = { type: 'tool', name };
    } else throw invalid('toolConfig.toolChoice', 'must be one of auto, any, tool');
  }
}

function decodeToolSpec(spec: unknown, path: string, warnings: ConversionWarning[]): ToolDefinition {
  if (!isObject(spec)) throw invalid(path, 'must be an object');
  const name = asString(spec['name']);
  if (name === undefined || name.length === 0) throw invalid(`${path}.name`, 'must be a non-empty string');
  const schema = isObject(spec['inputSchema']) ? spec['inputSchema']['json'] : undefined;
  if (!isObject(schema)) throw invalid(`${path}.inputSchema.json`, 'must be a JSON Schema object');
  const def: ToolDefinition = { type: 'function', name, parameters: schema };
  const description = asString(spec['description']);
  if (description !== undefined) def.description = description;
  if (typeof spec['strict'] === 'boolean') def.strict = spec['strict'];
  for (const key of Object.keys(spec)) {
    if (!['name', 'description', 'inputSchema', 'strict'].includes(key)) warnings.push(dropped(`${path}.${key}`, 'no canonical form'));
  }
  return def;
}

/**
 * `additionalModelRequestFields`: the model's own parameters. Claude's `thinking` and `top_k`
 * map onto the IR; everything else stays with the request for Bedrock only.
 */
function decodeAdditionalFields(value: unknown, request: Request, vendor: JsonObject): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('additionalModelRequestFields', 'must be an object');
  const rest: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'thinking') {
      const reasoning = decodeThinking(v);
      if (reasoning !== undefined) request.reasoning = reasoning;
    } else if (key === 'top_k' && typeof v === 'number' && Number.isInteger(v) && v >= 0) {
      request.topK = v;
    } else rest[key] = v;
  }
  if (Object.keys(rest).length > 0) vendor['additionalModelRequestFields'] = rest;
}

function decodeThinking(value: unknown): ReasoningConfig | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalid('additionalModelRequestFields.thinking', 'must be an object');
  switch (value['type']) {
    case 'enabled': {
      const budget = asNumber(value['budget_tokens']);
      if (budget === undefined || !Number.isInteger(budget) || budget < 0) {
        throw invalid('additionalModelRequestFields.thinking.budget_tokens', 'must be a non-negative integer');
      }
      return { enabled: true, budgetTokens: budget };
    }
    case 'disabled':
      return { enabled: false };
    case 'adaptive':
      return { enabled: true };
    default:
      throw invalid('additionalModelRequestFields.thinking.type', 'must be one of enabled, disabled, adaptive');
  }
}

function decodeRequestMetadata(value: unknown, request: Request): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('requestMetadata', 'must be an object of strings');
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw invalid(`requestMetadata.${key}`, 'must be a string');
    out[key] = v;
  }
  if (Object.keys(out).length > 0) request.metadata = out;
}
