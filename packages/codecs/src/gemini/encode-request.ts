/** Canonical request → Gemini `generateContent` body. No `model`: the gateway puts it in the path. */
import type { EncodedRequest, EncodeRequestOptions } from '../codec.js';
import type { Message } from '../ir/message.js';
import type { ReasoningConfig, ReasoningEffort, Request, ResponseFormat } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { dropped, lossy } from '../shared/warnings.js';
import { encodeModelParts, encodeToolResult, encodeUserParts } from './encode-parts.js';
import { fitsGeminiSubset, toGeminiSchema } from './json-schema.js';
import { FORMAT } from './schemas.js';

/** Thinking budgets for a reasoning effort from another format (within every 2.5 model's range). */
const EFFORT_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 512,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
};

export function encodeRequest(request: Request, options: EncodeRequestOptions = {}): EncodedRequest {
  void options; // the model and streaming travel in the URL
  const warnings: ConversionWarning[] = [];
  const sameFormat = request.vendor?.format === FORMAT;
  const body: JsonObject = {};

  body['contents'] = encodeContents(request.messages, warnings);
  if (request.system.length > 0) {
    request.system.forEach((p, i) => {
      if (p.cacheControl !== undefined) warnings.push(dropped(`system[${i}].cacheControl`, 'Gemini has no cache breakpoints'));
    });
    body['systemInstruction'] = { parts: request.system.map((p) => ({ text: p.text })) };
  }
  if (request.tools.length > 0) {
    body['tools'] = [{ functionDeclarations: request.tools.map((t, i) => encodeTool(t, `tools[${i}]`, sameFormat, warnings)) }];
  }
  const toolConfig = encodeToolChoice(request.toolChoice, request.tools.length > 0 || sameFormat);
  if (toolConfig !== undefined) body['toolConfig'] = toolConfig;
  if (request.parallelToolCalls === false) warnings.push(dropped('parallelToolCalls', 'Gemini cannot forbid parallel function calls'));

  const config = encodeGenerationConfig(request, sameFormat, warnings);
  if (Object.keys(config).length > 0) body['generationConfig'] = config;

  if (request.user !== undefined) warnings.push(dropped('user', 'Gemini requests carry no end-user id'));
  if (request.metadata !== undefined && Object.keys(request.metadata).length > 0) warnings.push(dropped('metadata', 'Gemini requests carry no metadata'));
  if (request.serviceTier !== undefined && !sameFormat) warnings.push(dropped('serviceTier', 'Gemini has no service tier setting'));
  applyVendorFields(request, body, warnings);
  return { body, warnings };
}

/**
 * IR messages → alternating Gemini contents. Tool results go into a user turn (function
 * responses first), consecutive same-role turns are merged, turns left empty are skipped.
 */
function encodeContents(messages: Message[], warnings: ConversionWarning[]): JsonObject[] {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const p of m.content) if (p.type === 'tool_call') names.set(p.id, p.name);
  }
  const contents: Array<{ role: 'user' | 'model'; parts: JsonObject[] }> = [];
  const push = (role: 'user' | 'model', parts: JsonObject[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (message.role === 'tool') {
      push(
        'user',
        message.content.map((r, j) => encodeToolResult(r, `${path}.content[${j}]`, warnings, names)),
      );
      return;
    }
    if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'Gemini contents have no participant name'));
    if (message.role === 'user') push('user', encodeUserParts(message.content, `${path}.content`, warnings));
    else push('model', encodeModelParts(message.content, `${path}.content`, warnings, true));
  });
  for (const content of contents) {
    if (content.role !== 'user') continue;
    const results = content.parts.filter((p) => p['functionResponse'] !== undefined);
    if (results.length > 0 && results.length < content.parts.length) {
      content.parts = [...results, ...content.parts.filter((p) => p['functionResponse'] === undefined)];
    }
  }
  return contents;
}

/**
 * A function declaration. Schemas are converted to the subset Gemini accepts (with a warning per
 * dropped keyword); for a Gemini client, a schema the subset cannot hold goes back verbatim as
 * `parametersJsonSchema`, as that client must have sent it.
 */
function encodeTool(tool: ToolDefinition, path: string, sameFormat: boolean, warnings: ConversionWarning[]): JsonObject {
  const decl: JsonObject = { name: tool.name };
  if (tool.description !== undefined) decl['description'] = tool.description;
  if (sameFormat && !fitsGeminiSubset(tool.parameters)) decl['parametersJsonSchema'] = tool.parameters;
  else decl['parameters'] = toGeminiSchema(tool.parameters, `${path}.parameters`, warnings);
  if (tool.strict === true) warnings.push(dropped(`${path}.strict`, 'Gemini has no strict function schemas'));
  if (tool.cacheControl !== undefined) warnings.push(dropped(`${path}.cacheControl`, 'Gemini has no cache breakpoints'));
  return decl;
}

function encodeToolChoice(choice: ToolChoice | undefined, hasTools: boolean): JsonObject | undefined {
  if (choice === undefined || !hasTools) return undefined;
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  }
}

function encodeGenerationConfig(request: Request, sameFormat: boolean, warnings: ConversionWarning[]): JsonObject {
  const config: JsonObject = {};
  if (request.maxTokens !== undefined) config['maxOutputTokens'] = request.maxTokens;
  if (request.temperature !== undefined) config['temperature'] = request.temperature;
  if (request.topP !== undefined) config['topP'] = request.topP;
  if (request.topK !== undefined) config['topK'] = request.topK;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) config['stopSequences'] = request.stopSequences;
  if (request.seed !== undefined) config['seed'] = request.seed;
  if (request.presencePenalty !== undefined) config['presencePenalty'] = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) config['frequencyPenalty'] = request.frequencyPenalty;
  if (request.responseFormat !== undefined) Object.assign(config, encodeResponseFormat(request.responseFormat, warnings));
  if (request.reasoning !== undefined) {
    const thinking = encodeThinking(request.reasoning, sameFormat, warnings);
    if (Object.keys(thinking).length > 0) config['thinkingConfig'] = thinking;
  }
  return config;
}

function encodeResponseFormat(format: ResponseFormat, warnings: ConversionWarning[]): JsonObject {
  if (format.type === 'text') return { responseMimeType: 'text/plain' };
  if (format.type === 'json') return { responseMimeType: 'application/json' };
  if (format.description !== undefined) warnings.push(dropped('responseFormat.description', 'Gemini response schemas have no description'));
  // The subset when it holds the schema exactly; otherwise JSON Schema, which Gemini also accepts here.
  if (fitsGeminiSubset(format.schema))
    return { responseMimeType: 'application/json', responseSchema: toGeminiSchema(format.schema, 'responseFormat.schema', []) };
  return { responseMimeType: 'application/json', responseJsonSchema: format.schema };
}

function encodeThinking(reasoning: ReasoningConfig, sameFormat: boolean, warnings: ConversionWarning[]): JsonObject {
  const out: JsonObject = {};
  if (reasoning.enabled === false || reasoning.effort === 'none') out['thinkingBudget'] = 0;
  else if (reasoning.budgetTokens !== undefined) out['thinkingBudget'] = reasoning.budgetTokens;
  else if (reasoning.effort !== undefined && sameFormat) out['thinkingLevel'] = reasoning.effort;
  else if (reasoning.effort !== undefined) {
    out['thinkingBudget'] = EFFORT_BUDGET[reasoning.effort];
    warnings.push(
      lossy('reasoning.effort', `Reasoning effort ${reasoning.effort} was sent as a thinking budget of ${EFFORT_BUDGET[reasoning.effort]} tokens.`),
    );
  } else if (reasoning.enabled === true && !sameFormat) out['thinkingBudget'] = -1; // dynamic
  // Clients that asked for summaries (Responses) or a thinking budget (Anthropic) expect to see thoughts.
  let show = reasoning.includeThoughts;
  if (show === undefined && !sameFormat && (reasoning.summary !== undefined || (reasoning.budgetTokens ?? 0) > 0)) show = true;
  if (show !== undefined && out['thinkingBudget'] !== 0) out['includeThoughts'] = show;
  return out;
}

/** Vendor fields: re-emitted for Gemini (merged into the objects they extend), dropped with a warning otherwise. */
function applyVendorFields(request: Request, body: JsonObject, warnings: ConversionWarning[]): void {
  const vendor = request.vendor;
  if (vendor === undefined) return;
  if (vendor.format !== FORMAT) {
    for (const key of Object.keys(vendor.fields)) warnings.push(dropped(key, `a field of ${vendor.format} with no ${FORMAT} equivalent`));
    return;
  }
  for (const [key, value] of Object.entries(vendor.fields)) {
    if (key === 'tools' && Array.isArray(value)) body['tools'] = [...((body['tools'] as unknown[] | undefined) ?? []), ...(value as unknown[])];
    else if ((key === 'generationConfig' || key === 'toolConfig') && isObject(value)) {
      const current = isObject(body[key]) ? body[key] : {};
      const merged: JsonObject = { ...current };
      for (const [k, v] of Object.entries(value)) {
        merged[k] = isObject(v) && isObject(current[k]) ? { ...current[k], ...v } : v;
      }
      body[key] = merged;
    } else if (!(key in body)) body[key] = value;
  }
}
