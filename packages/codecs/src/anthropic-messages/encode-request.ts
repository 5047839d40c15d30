/** Canonical request → Anthropic Messages request body. */
import type { EncodedRequest, EncodeRequestOptions } from '../codec.js';
import type { TextPart } from '../ir/content.js';
import type { Message } from '../ir/message.js';
import type { ReasoningConfig, ReasoningEffort, Request, ResponseFormat } from '../ir/request.js';
import type { ToolChoice, ToolDefinition } from '../ir/tool.js';
import type { ConversionWarning } from '../ir/warning.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { dropped, lossy } from '../shared/warnings.js';
import { encodeAssistantPart, encodeFile, encodeImage, encodeText, encodeToolResult } from './encode-content.js';
import { FORMAT, withCache } from './schemas.js';

/** Anthropic requires `max_tokens`; the gateway normally sets one, this is the last resort. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Thinking budgets for a reasoning effort from another format (Anthropic's minimum is 1024). */
const EFFORT_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
};

const SERVICE_TIERS = new Set(['auto', 'standard_only']);

export function encodeRequest(request: Request, options: EncodeRequestOptions = {}): EncodedRequest {
  const warnings: ConversionWarning[] = [];
  const sameFormat = request.vendor?.format === FORMAT;
  const body: JsonObject = {};

  const model = options.model ?? request.model;
  if (model !== undefined) body['model'] = model;
  let maxTokens = request.maxTokens;
  if (maxTokens === undefined) {
    maxTokens = DEFAULT_MAX_TOKENS;
    warnings.push(lossy('max_tokens', `Anthropic requires max_tokens; none was given, so ${DEFAULT_MAX_TOKENS} was set.`));
  }
  body['max_tokens'] = maxTokens;

  const system = [...request.system];
  if (request.responseFormat !== undefined) appendFormatInstruction(request.responseFormat, system, warnings);
  if (system.length > 0) body['system'] = encodeSystem(system);
  body['messages'] = encodeMessages(request.messages, warnings);

  if (request.stopSequences !== undefined) body['stop_sequences'] = request.stopSequences;
  if (request.temperature !== undefined) {
    body['temperature'] = Math.min(request.temperature, 1);
    if (request.temperature > 1) warnings.push(lossy('temperature', `Anthropic accepts temperature up to 1; ${request.temperature} was sent as 1.`));
  }
  if (request.topP !== undefined) body['top_p'] = request.topP;
  if (request.topK !== undefined) body['top_k'] = request.topK;
  if (request.user !== undefined) body['metadata'] = { user_id: request.user };
  if (request.metadata !== undefined && Object.keys(request.metadata).length > 0) {
    warnings.push(dropped('metadata', 'Anthropic metadata only carries user_id'));
  }

  const tools = request.tools.map((tool, i) => encodeTool(tool, `tools[${i}]`, sameFormat, warnings));
  if (tools.length > 0) body['tools'] = tools;
  const toolChoice = encodeToolChoice(request.toolChoice, request.parallelToolCalls, request.tools.length > 0 || sameFormat);
  if (toolChoice !== undefined) body['tool_choice'] = toolChoice;

  const thinking = encodeThinking(request.reasoning, maxTokens, sameFormat, warnings);
  if (thinking !== undefined) body['thinking'] = thinking;
  if (request.serviceTier !== undefined) {
    if (sameFormat || SERVICE_TIERS.has(request.serviceTier)) body['service_tier'] = request.serviceTier;
    else warnings.push(dropped('service_tier', `Anthropic has no service tier ${request.serviceTier}`));
  }
  body['stream'] = options.stream ?? request.stream;

  if (request.seed !== undefined) warnings.push(dropped('seed', 'Anthropic has no seed'));
  if (request.frequencyPenalty !== undefined) warnings.push(dropped('frequency_penalty', 'Anthropic has no frequency penalty'));
  if (request.presencePenalty !== undefined) warnings.push(dropped('presence_penalty', 'Anthropic has no presence penalty'));
  applyVendorFields(request, body, warnings);
  return { body, warnings };
}

function encodeSystem(system: TextPart[]): string | JsonObject[] {
  const only = system[0];
  if (system.length === 1 && only !== undefined && only.cacheControl === undefined) return only.text;
  return system.map(encodeText);
}

function appendFormatInstruction(format: ResponseFormat, system: TextPart[], warnings: ConversionWarning[]): void {
  if (format.type === 'text') return;
  let text = 'Respond with a single valid JSON object and nothing else.';
  if (format.type === 'json_schema') {
    text = `Respond with a single valid JSON object that conforms to this JSON Schema, and nothing else:\n${JSON.stringify(format.schema)}`;
  }
  system.push({ type: 'text', text });
  warnings.push({
    code: 'unsupported_feature',
    path: 'response_format',
    message: 'Anthropic has no response_format; an instruction to answer in JSON was added to the system prompt instead.',
  });
}

interface Turn {
  role: 'user' | 'assistant';
  content: JsonObject[];
}

/**
 * IR messages → alternating Anthropic turns. Tool messages become tool_result blocks of a user
 * turn, merged with the user message after them; consecutive same-role turns are merged, and
 * tool results are put first in their user turn (Anthropic requires it).
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
      message.content.forEach((part, j) => blocks.push(encodeToolResult(part, `${path}.content[${j}]`, warnings)));
      push('user', blocks);
      return;
    }
    if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'Anthropic messages have no participant name'));
    if (message.role === 'user') {
      message.content.forEach((part, j) => {
        const p = `${path}.content[${j}]`;
        if (part.type === 'text') {
          if (part.text.length > 0) blocks.push(encodeText(part));
        } else if (part.type === 'image') blocks.push(encodeImage(part, p, warnings));
        else {
          const doc = encodeFile(part, p, warnings);
          if (doc !== undefined) blocks.push(doc);
        }
      });
      push('user', blocks);
      return;
    }
    message.content.forEach((part, j) => {
      const block = encodeAssistantPart(part, `${path}.content[${j}]`, warnings, true);
      if (block !== undefined) blocks.push(block);
    });
    push('assistant', blocks);
  });
  for (const turn of turns) {
    if (turn.role !== 'user') continue;
    const results = turn.content.filter((b) => b['type'] === 'tool_result');
    if (results.length > 0 && results.length < turn.content.length) {
      turn.content = [...results, ...turn.content.filter((b) => b['type'] !== 'tool_result')];
    }
  }
  return turns;
}

function encodeTool(tool: ToolDefinition, path: string, sameFormat: boolean, warnings: ConversionWarning[]): JsonObject {
  const out: JsonObject = { name: tool.name };
  if (tool.description !== undefined) out['description'] = tool.description;
  out['input_schema'] = tool.parameters;
  if (tool.strict !== undefined) {
    // Strict tool use is model- and beta-dependent on Anthropic: only re-send what an Anthropic client sent.
    if (sameFormat) out['strict'] = tool.strict;
    else if (tool.strict) warnings.push(dropped(`${path}.strict`, 'strict tool schemas are not sent to Anthropic in translation'));
  }
  return withCache(out, tool.cacheControl);
}

function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined, hasTools: boolean): JsonObject | undefined {
  let out: JsonObject | undefined;
  if (choice?.type === 'auto') out = { type: 'auto' };
  else if (choice?.type === 'required') out = { type: 'any' };
  else if (choice?.type === 'tool') out = { type: 'tool', name: choice.name };
  else if (choice?.type === 'none') return hasTools ? { type: 'none' } : undefined;
  if (parallel === false && hasTools) {
    out ??= { type: 'auto' };
    out['disable_parallel_tool_use'] = true;
  }
  return out;
}

function encodeThinking(reasoning: ReasoningConfig | undefined, maxTokens: number, sameFormat: boolean, warnings: ConversionWarning[]): JsonObject | undefined {
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
  // Anthropic wants 1024 ≤ budget_tokens < max_tokens.
  const fitted = Math.min(Math.max(budget, 1024), maxTokens - 1);
  if (fitted < 1024) {
    warnings.push(dropped('reasoning', `a thinking budget needs max_tokens above 1024 (got ${maxTokens})`));
    return undefined;
  }
  if (fitted !== budget) warnings.push(lossy('reasoning.budget_tokens', `The thinking budget ${budget} was adjusted to ${fitted} to fit Anthropic's limits.`));
  return { type: 'enabled', budget_tokens: fitted };
}

/** Vendor fields: re-emitted for anthropic_messages, dropped with a warning when from another format. */
function applyVendorFields(request: Request, body: JsonObject, warnings: ConversionWarning[]): void {
  const vendor = request.vendor;
  if (vendor === undefined) return;
  if (vendor.format !== FORMAT) {
    for (const key of Object.keys(vendor.fields)) warnings.push(dropped(key, `a field of ${vendor.format} with no anthropic_messages equivalent`));
    return;
  }
  for (const [key, value] of Object.entries(vendor.fields)) {
    if (key === 'tools' && Array.isArray(value)) {
      body['tools'] = [...((body['tools'] as unknown[] | undefined) ?? []), ...(value as unknown[])];
    } else if (key === 'metadata' && isObject(value)) {
      body['metadata'] = { ...value, ...(body['metadata'] ?? {}) };
    } else if (!(key in body)) {
      body[key] = value;
    }
  }
}
