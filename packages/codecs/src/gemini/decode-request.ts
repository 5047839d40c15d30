/** Gemini `generateContent` request body → canonical request. The model comes from the URL. */
import type { DecodedRequest, DecodeRequestOptions } from '../codec.js';
import type { AssistantContentPart, TextPart } from '../ir/content.js';
import type { Message } from '../ir/message.js';
import type { ReasoningConfig, ReasoningEffort, Request, ResponseFormat } from '../ir/request.js';
import type { ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, asNumber, asString, isObject, type JsonObject } from '../shared/guards.js';
import { dropped, lossy } from '../shared/warnings.js';
import { decodeModelPart, decodeUserParts, newCallIds, type CallIds } from './decode-parts.js';
import { fromGeminiSchema } from './json-schema.js';
import { camelKeys, FORMAT, invalid, IR_REQUEST_FIELDS, objectField, VENDOR_REQUEST_FIELDS, type DecodeContext } from './schemas.js';

const IR_FIELDS = new Set<string>(IR_REQUEST_FIELDS);
const VENDOR_FIELDS = new Set<string>(VENDOR_REQUEST_FIELDS);
const LEVELS = new Set(['minimal', 'low', 'medium', 'high']);

export function decodeRequest(body: unknown, options: DecodeRequestOptions = {}): DecodedRequest {
  if (!isObject(body)) throw invalid('body', 'the request body must be a JSON object');
  const wire = camelKeys(body, '');
  const warnings: ConversionWarning[] = [];
  const ctx: DecodeContext = { strict: true, warnings };
  const vendor: JsonObject = {};
  const unclassified: string[] = [];

  const request: Request = {
    system: decodeSystem(wire['systemInstruction']),
    messages: decodeContents(wire['contents'], ctx),
    tools: [],
    stream: options.stream ?? false,
  };
  const bodyModel = asString(wire['model']);
  const model = options.model ?? (bodyModel === undefined ? undefined : bodyModel.replace(/^models\//, ''));
  if (model !== undefined) request.model = model;

  decodeTools(wire['tools'], request, vendor, warnings);
  decodeToolConfig(wire['toolConfig'], request, vendor, warnings);
  decodeGenerationConfig(wire['generationConfig'], request, vendor, warnings);

  for (const [key, value] of Object.entries(wire)) {
    if (IR_FIELDS.has(key)) continue;
    vendor[key] = value;
    if (VENDOR_FIELDS.has(key)) continue;
    unclassified.push(key);
    warnings.push({ code: 'unclassified_field', path: key, message: `${key} is not a known ${FORMAT} request field.` });
  }
  // Always set, even when empty: it records that the request came from a Gemini client.
  request.vendor = { format: FORMAT, fields: vendor };
  return { request, warnings, unclassified };
}

function decodeSystem(value: unknown): TextPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.length === 0 ? [] : [{ type: 'text', text: value }];
  if (!isObject(value)) throw invalid('systemInstruction', 'must be a Content object');
  const parts = asArray(value['parts']) ?? [];
  return parts.map((part, i) => {
    if (!isObject(part) || typeof part['text'] !== 'string') throw invalid(`systemInstruction.parts[${i}]`, 'must be a text part');
    return { type: 'text', text: part['text'] };
  });
}

function decodeContents(value: unknown, ctx: DecodeContext): Message[] {
  const list = asArray(value);
  if (list === undefined) throw invalid('contents', 'must be an array of Content objects');
  const ids: CallIds = newCallIds();
  const out: Message[] = [];
  list.forEach((content, i) => {
    const path = `contents[${i}]`;
    if (!isObject(content)) throw invalid(path, 'must be an object with role and parts');
    const role = content['role'] ?? 'user';
    const parts = content['parts'] === undefined ? [] : asArray(content['parts']);
    if (parts === undefined) throw invalid(`${path}.parts`, 'must be an array of parts');
    if (role === 'model') {
      const assistant: AssistantContentPart[] = [];
      parts.forEach((part, j) => assistant.push(...decodeModelPart(part, `${path}.parts[${j}]`, ctx, ids)));
      out.push({ role: 'assistant', content: assistant });
    } else if (role === 'user' || role === 'function') {
      const { content: user, results } = decodeUserParts(parts, `${path}.parts`, ctx, ids);
      if (results.length > 0) out.push({ role: 'tool', content: results });
      if (user.length > 0 || results.length === 0) out.push({ role: 'user', content: user });
    } else throw invalid(`${path}.role`, 'must be "user" or "model"');
  });
  return out;
}

function decodeTools(value: unknown, request: Request, vendor: JsonObject, warnings: ConversionWarning[]): void {
  if (value === undefined || value === null) return;
  const list = asArray(value);
  if (list === undefined) throw invalid('tools', 'must be an array');
  const others: JsonObject[] = [];
  list.forEach((raw, i) => {
    const path = `tools[${i}]`;
    if (!isObject(raw)) throw invalid(path, 'must be an object');
    const { functionDeclarations, ...rest } = camelKeys(raw, path);
    if (functionDeclarations !== undefined) {
      const decls = asArray(functionDeclarations);
      if (decls === undefined) throw invalid(`${path}.functionDeclarations`, 'must be an array');
      decls.forEach((d, j) => request.tools.push(decodeDeclaration(d, `${path}.functionDeclarations[${j}]`, warnings)));
    }
    if (Object.keys(rest).length > 0) {
      others.push(rest);
      warnings.push({
        code: 'unsupported_feature',
        path,
        message: `${path} holds Gemini built-in tools (${Object.keys(rest).join(', ')}); they are kept for Gemini and dropped for other formats.`,
      });
    }
  });
  if (others.length > 0) vendor['tools'] = others;
}

function decodeDeclaration(raw: unknown, path: string, warnings: ConversionWarning[]): ToolDefinition {
  if (!isObject(raw)) throw invalid(path, 'must be an object');
  const decl = camelKeys(raw, path);
  const name = asString(decl['name']);
  if (name === undefined || name.length === 0) throw invalid(`${path}.name`, 'must be a non-empty string');
  let parameters: JsonObject = { type: 'object', properties: {} };
  if (isObject(decl['parametersJsonSchema'])) parameters = decl['parametersJsonSchema'];
  else if (isObject(decl['parameters'])) parameters = fromGeminiSchema(decl['parameters']);
  else if (decl['parameters'] !== undefined || decl['parametersJsonSchema'] !== undefined) throw invalid(`${path}.parameters`, 'must be a schema object');
  const def: ToolDefinition = { type: 'function', name, parameters };
  const description = asString(decl['description']);
  if (description !== undefined && description.length > 0) def.description = description;
  for (const key of Object.keys(decl)) {
    if (!['name', 'description', 'parameters', 'parametersJsonSchema'].includes(key)) warnings.push(dropped(`${path}.${key}`, 'no canonical form'));
  }
  return def;
}

function decodeToolConfig(value: unknown, request: Request, vendor: JsonObject, warnings: ConversionWarning[]): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('toolConfig', 'must be an object');
  const { functionCallingConfig, ...rest } = camelKeys(value, 'toolConfig');
  const keep: JsonObject = { ...rest };
  if (isObject(functionCallingConfig)) {
    const fcc = camelKeys(functionCallingConfig, 'toolConfig.functionCallingConfig');
    const names = asArray(fcc['allowedFunctionNames'])?.filter((n): n is string => typeof n === 'string') ?? [];
    const mode = typeof fcc['mode'] === 'string' ? fcc['mode'].toUpperCase() : undefined;
    if (mode === 'AUTO') request.toolChoice = { type: 'auto' };
    else if (mode === 'NONE') request.toolChoice = { type: 'none' };
    else if (mode === 'ANY' && names.length === 1) request.toolChoice = { type: 'tool', name: names[0]! };
    else if (mode === 'ANY') request.toolChoice = { type: 'required' };
    else if (mode === 'VALIDATED') {
      request.toolChoice = { type: 'auto' };
      warnings.push(lossy('toolConfig.functionCallingConfig.mode', 'VALIDATED function calling was sent as auto to other formats.'));
    }
    // What the IR cannot say (several allowed names, VALIDATED) is kept for Gemini.
    const restricted = names.length > 1 || (names.length === 1 && mode !== 'ANY');
    if (restricted) warnings.push(lossy('toolConfig.functionCallingConfig.allowedFunctionNames', 'Only Gemini can restrict calls to several named functions.'));
    if (restricted || mode === 'VALIDATED') keep['functionCallingConfig'] = fcc;
  } else if (functionCallingConfig !== undefined) throw invalid('toolConfig.functionCallingConfig', 'must be an object');
  if (Object.keys(keep).length > 0) vendor['toolConfig'] = keep;
}

function number(config: JsonObject, key: string, integer = false): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  const n = asNumber(value);
  if (n === undefined || (integer && !Number.isInteger(n))) throw invalid(`generationConfig.${key}`, integer ? 'must be an integer' : 'must be a number');
  return n;
}

const NUMBERS = [
  ['maxOutputTokens', 'maxTokens', true],
  ['temperature', 'temperature', false],
  ['topP', 'topP', false],
  ['topK', 'topK', true],
  ['seed', 'seed', true],
  ['presencePenalty', 'presencePenalty', false],
  ['frequencyPenalty', 'frequencyPenalty', false],
] as const;

function decodeGenerationConfig(value: unknown, request: Request, vendor: JsonObject, warnings: ConversionWarning[]): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('generationConfig', 'must be an object');
  const config = camelKeys(value, 'generationConfig');
  const rest: JsonObject = { ...config };
  for (const [wireKey, irKey, integer] of NUMBERS) {
    const n = number(config, wireKey, integer);
    if (n !== undefined) request[irKey] = n;
    delete rest[wireKey];
  }
  if (config['stopSequences'] !== undefined && config['stopSequences'] !== null) {
    const stops = asArray(config['stopSequences']);
    if (stops === undefined || !stops.every((s) => typeof s === 'string')) throw invalid('generationConfig.stopSequences', 'must be an array of strings');
    request.stopSequences = stops;
  }
  delete rest['stopSequences'];

  const format = decodeResponseFormat(config);
  if (format !== undefined) {
    request.responseFormat = format;
    delete rest['responseMimeType'];
    delete rest['responseSchema'];
    delete rest['responseJsonSchema'];
  }
  const thinking = objectField(config, 'thinkingConfig');
  if (thinking !== undefined) {
    request.reasoning = decodeThinking(camelKeys(thinking, 'generationConfig.thinkingConfig'), warnings);
    delete rest['thinkingConfig'];
  }
  if (Object.keys(rest).length > 0) vendor['generationConfig'] = rest;
}

function decodeResponseFormat(config: JsonObject): ResponseFormat | undefined {
  const mime = asString(config['responseMimeType']);
  if (isObject(config['responseJsonSchema'])) return { type: 'json_schema', schema: config['responseJsonSchema'] };
  if (isObject(config['responseSchema']) && (mime === undefined || mime === 'application/json')) {
    return { type: 'json_schema', schema: fromGeminiSchema(config['responseSchema']) };
  }
  if (mime === 'application/json' && config['responseSchema'] === undefined) return { type: 'json' };
  if (mime === 'text/plain') return { type: 'text' };
  return undefined; // text/x.enum and other modes stay Gemini-only
}

function decodeThinking(config: JsonObject, warnings: ConversionWarning[]): ReasoningConfig {
  const out: ReasoningConfig = {};
  const budget = config['thinkingBudget'];
  if (budget !== undefined && budget !== null) {
    const n = asNumber(budget);
    if (n === undefined || !Number.isInteger(n)) throw invalid('generationConfig.thinkingConfig.thinkingBudget', 'must be an integer');
    if (n === 0) out.enabled = false;
    else if (n < 0)
      out.enabled = true; // -1: dynamic thinking
    else {
      out.enabled = true;
      out.budgetTokens = n;
    }
  }
  const level = asString(config['thinkingLevel'])?.toLowerCase();
  if (level !== undefined && LEVELS.has(level)) out.effort = level as ReasoningEffort;
  else if (level !== undefined) warnings.push(dropped('generationConfig.thinkingConfig.thinkingLevel', `unknown level ${level}`));
  if (typeof config['includeThoughts'] === 'boolean') out.includeThoughts = config['includeThoughts'];
  for (const key of Object.keys(config)) {
    if (!['thinkingBudget', 'thinkingLevel', 'includeThoughts'].includes(key))
      warnings.push(dropped(`generationConfig.thinkingConfig.${key}`, 'no canonical form'));
  }
  return out;
}
