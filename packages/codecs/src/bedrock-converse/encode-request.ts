/** Canonical request → Bedrock Converse request body (no model, no stream: both are in the URL). */
import type { EncodedRequest, EncodeRequestOptions } from '../codec.js';
import type { Message } from '../ir/message.js';
import type { ReasoningConfig, ReasoningEffort, Request, ResponseFormat } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { dropped, lossy } from '../shared/warnings.js';
import { encodeAssistantPart, encodeFile, encodeImage, encodeText, encodeToolResult } from './encode-content.js';
import { cachePointBlock, FORMAT } from './schemas.js';

/** Thinking budgets for a reasoning effort from another format (Claude's minimum is 1024). */
const EFFORT_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
};

const SERVICE_TIERS = new Set(['priority', 'default', 'flex', 'reserved']);

export function encodeRequest(request: Request, options: EncodeRequestOptions = {}): EncodedRequest {
  void options; // the model and streaming travel in the URL
  const warnings: ConversionWarning[] = [];
  const sameFormat = request.vendor?.format === FORMAT;
  const body: JsonObject = {};

  body['messages'] = encodeMessages(request.messages, warnings);
  const system = request.system.flatMap((part) => encodeText(part));
  if (request.responseFormat !== undefined) system.push(...formatInstruction(request.responseFormat, warnings));
  if (system.length > 0) body['system'] = system;

  const inference: JsonObject = {};
  if (request.maxTokens !== undefined) inference['maxTokens'] = request.maxTokens;
  if (request.temperature !== undefined) {
    inference['temperature'] = Math.min(request.temperature, 1);
    if (request.temperature > 1) warnings.push(lossy('temperature', `Bedrock accepts temperature up to 1; ${request.temperature} was sent as 1.`));
  }
  if (request.topP !== undefined) inference['topP'] = request.topP;
  if (request.stopSequences !== undefined) inference['stopSequences'] = request.stopSequences;
  if (Object.keys(inference).length > 0) body['inferenceConfig'] = inference;

  const toolConfig = encodeToolConfig(request.tools, request.toolChoice, request.parallelToolCalls, warnings);
  if (toolConfig !== undefined) body['toolConfig'] = toolConfig;

  const additional: JsonObject = {};
  const thinking = encodeThinking(request.reasoning, request.maxTokens, sameFormat, warnings);
  if (thinking !== undefined) additional['thinking'] = thinking;
  if (request.topK !== undefined) additional['top_k'] = request.topK;
  if (Object.keys(additional).length > 0) body['additionalModelRequestFields'] = additional;

  if (request.metadata !== undefined && Object.keys(request.metadata).length > 0) body['requestMetadata'] = { ...request.metadata };
  if (request.user !== undefined) warnings.push(dropped('user', 'Bedrock Converse has no end-user field'));
  if (request.serviceTier !== undefined) {
    if (sameFormat || SERVICE_TIERS.has(request.serviceTier)) body['serviceTier'] = { type: request.serviceTier };
    else warnings.push(dropped('service_tier', `Bedrock has no service tier ${request.serviceTier}`));
  }
  if (request.seed !== undefined) warnings.push(dropped('seed', 'Bedrock Converse has no seed'));
  if (request.frequencyPenalty !== undefined) warnings.push(dropped('frequency_penalty', 'Bedrock Converse has no frequency penalty'));
  if (request.presencePenalty !== undefined) warnings.push(dropped('presence_penalty', 'Bedrock Converse has no presence penalty'));
  applyVendorFields(request, body, warnings);
  return { body, warnings };
}

function formatInstruction(format: ResponseFormat, warnings: ConversionWarning[]): JsonObject[] {
  if (format.type === 'text') return [];
  let text = 'Respond with a single valid JSON object and nothing else.';
  if (format.type === 'json_schema') {
    text = `Respond with a single valid JSON object that conforms to this JSON Schema, and nothing else:\n${JSON.stringify(format.schema)}`;
  }
  warnings.push({
    code: 'unsupported_feature',
    path: 'response_format',
    message: 'Bedrock Converse has no response format for every model; an instruction to answer in JSON was added to the system prompt instead.',
  });
  return [{ text }];
}

interface Turn {
  role: 'user' | 'assistant';
  content: JsonObject[];
}

/**
 * IR messages → alternating Converse turns. Tool messages become `toolResult` blocks of a user
 * turn, merged with the user message after them (results first); same-role turns are merged.
 */
function encodeMessages(messages: Message[], warnings: ConversionWarning[]): Turn[] {
  const turns: Turn[] = [];
  const push = (role: Turn['role'], blocks: JsonObject[]) => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    const blocks: JsonObject[] = [];
    if (message.role === 'tool') {
      message.content.forEach((part, j) => blocks.push(...encodeToolResult(part, `${path}.content[${j}]`, warnings)));
      push('user', blocks);
      return;
    }
    if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'Bedrock messages have no participant name'));
    if (message.role === 'user') {
      message.content.forEach((part, j) => {
        const p = `${path}.content[${j}]`;
        if (part.type === 'text') {
          if (part.text.length > 0) blocks.push(...encodeText(part));
        } else if (part.type === 'image') blocks.push(...encodeImage(part, p, warnings));
        else blocks.push(...encodeFile(part, p, j, warnings));
      });
      push('user', blocks);
      return;
    }
    message.content.forEach((part, j) => blocks.push(...encodeAssistantPart(part, `${path}.content[${j}]`, warnings, true)));
    push('assistant', blocks);
  });
  for (const turn of turns) {
    if (turn.role !== 'user') continue;
    // Tool results first in their turn (with the cache points that follow them).
    const results: JsonObject[] = [];
    const rest: JsonObject[] = [];
    let lastWasResult = false;
    for (const block of turn.content) {
      const isResult: boolean = 'toolResult' in block || ('cachePoint' in block && lastWasResult);
      (isResult ? results : rest).push(block);
      lastWasResult = isResult;
    }
    if (results.length > 0 && rest.length > 0) turn.content = [...results, ...rest];
  }
  return turns;
}

function encodeToolConfig(
  tools: ToolDefinition[],
  choice: ToolChoice | undefined,
  parallel: boolean | undefined,
  warnings: ConversionWarning[],
): JsonObject | undefined {
  if (tools.length === 0) return undefined;
  const specs: JsonObject[] = [];
  tools.forEach((tool, i) => {
    const spec: JsonObject = { name: tool.name, inputSchema: { json: tool.parameters } };
    if (tool.description !== undefined) spec['description'] = tool.description;
    if (tool.strict === true) warnings.push(dropped(`tools[${i}].strict`, 'strict tool schemas are not sent to Bedrock in translation'));
    specs.push({ toolSpec: spec });
    if (tool.cacheControl !== undefined) specs.push(cachePointBlock(tool.cacheControl));
  });
  const out: JsonObject = { tools: specs };
  if (choice?.type === 'auto') out['toolChoice'] = { auto: {} };
  else if (choice?.type === 'required') out['toolChoice'] = { any: {} };
  else if (choice?.type === 'tool') out['toolChoice'] = { tool: { name: choice.name } };
  else if (choice?.type === 'none')
    warnings.push(lossy('tool_choice', 'Bedrock Converse cannot forbid tool calls while tools are declared; tool_choice "none" was sent as auto.'));
  if (parallel === false) warnings.push(dropped('parallel_tool_calls', 'Bedrock Converse cannot turn off parallel tool calls'));
  return out;
}

function encodeThinking(
  reasoning: ReasoningConfig | undefined,
  maxTokens: number | undefined,
  sameFormat: boolean,
  warnings: ConversionWarning[],
): JsonObject | undefined {
  if (reasoning === undefined) return undefined;
  if (reasoning.enabled === false || reasoning.effort === 'none') return { type: 'disabled' };
  let budget = reasoning.budgetTokens;
  if (budget === undefined && reasoning.effort !== undefined) {
    budget = EFFORT_BUDGET[reasoning.effort];
    warnings.push(lossy('reasoning.effort', `Reasoning effort ${reasoning.effort} was sent as a thinking budget of ${budget} tokens.`));
  }
  if (budget === undefined) return reasoning.enabled === true ? { type: 'adaptive' } : undefined;
  if (sameFormat) return { type: 'enabled', budget_tokens: budget };
  if (budget <= 0) return { type: 'disabled' };
  // Claude wants 1024 ≤ budget_tokens < maxTokens.
  const limit = maxTokens ?? Number.POSITIVE_INFINITY;
  const fitted = Math.min(Math.max(budget, 1024), limit - 1);
  if (fitted < 1024) {
    warnings.push(dropped('reasoning', `a thinking budget needs maxTokens above 1024 (got ${maxTokens})`));
    return undefined;
  }
  if (fitted !== budget) warnings.push(lossy('reasoning.budget_tokens', `The thinking budget ${budget} was adjusted to ${fitted} to fit Claude's limits.`));
  return { type: 'enabled', budget_tokens: fitted };
}

/** Vendor fields: re-emitted for bedrock_converse, dropped with a warning when from another format. */
function applyVendorFields(request: Request, body: JsonObject, warnings: ConversionWarning[]): void {
  const vendor = request.vendor;
  if (vendor === undefined) return;
  if (vendor.format !== FORMAT) {
    for (const key of Object.keys(vendor.fields)) warnings.push(dropped(key, `a field of ${vendor.format} with no ${FORMAT} equivalent`));
    return;
  }
  for (const [key, value] of Object.entries(vendor.fields)) {
    if (key === 'additionalModelRequestFields' && isObject(value)) {
      body[key] = { ...value, ...(body[key] ?? {}) };
    } else if (key === 'toolConfig' && isObject(value) && Array.isArray(value['tools'])) {
      // Bedrock's own system tools, after the tool specs.
      const config = isObject(body[key]) ? body[key] : {};
      body[key] = { ...config, tools: [...(Array.isArray(config['tools']) ? (config['tools'] as unknown[]) : []), ...(value['tools'] as unknown[])] };
    } else if (!(key in body)) body[key] = value;
  }
}
