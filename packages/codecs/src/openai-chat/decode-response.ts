/** A Chat Completions response body → the canonical response. */
import type { DecodedResponse } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AssistantContentPart } from '../ir/content.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asNumber, asString, isObject, type JsonObject } from '../shared/guards.js';
import { argumentsText } from '../shared/openai-content.js';
import { dropped, lossy } from '../shared/warnings.js';
import { decodeFinishReason } from './finish-reason.js';
import { FORMAT } from './schemas.js';
import { decodeUsage } from './usage.js';

/** Top-level response fields with no IR home, kept for a same-format round trip. */
const VENDOR_RESPONSE_FIELDS = ['service_tier', 'system_fingerprint'] as const;

function malformed(message: string): never {
  throw new GatewayError('upstream_error', message, { status: 502 });
}

export function decodeResponse(body: unknown): DecodedResponse {
  if (!isObject(body)) malformed('The upstream response is not a JSON object.');
  if (!Array.isArray(body.choices)) malformed('The upstream response has no choices array.');
  const warnings: ConversionWarning[] = [];
  const choice = (body.choices as unknown[])[0];
  if (body.choices.length > 1) warnings.push(lossy('choices', `Only the first of ${body.choices.length} choices was kept.`));
  const message = isObject(choice) && isObject(choice.message) ? choice.message : {};

  const response: Response = {
    id: asString(body.id) ?? '',
    model: asString(body.model) ?? '',
    content: decodeContent(message, warnings),
    finishReason: decodeFinishReason(isObject(choice) ? choice.finish_reason : undefined),
    usage: decodeUsage(body.usage),
  };
  const created = asNumber(body.created);
  if (created !== undefined) response.created = created;

  const vendor: JsonObject = {};
  for (const key of VENDOR_RESPONSE_FIELDS) if (body[key] !== undefined && body[key] !== null) vendor[key] = body[key];
  if (Array.isArray(message.annotations) && message.annotations.length > 0) vendor.annotations = message.annotations;
  if (isObject(choice) && choice.logprobs !== undefined && choice.logprobs !== null) vendor.logprobs = choice.logprobs;
  if (Object.keys(vendor).length > 0) response.vendor = { format: FORMAT, fields: vendor };
  return { response, warnings };
}

function decodeContent(message: JsonObject, warnings: ConversionWarning[]): AssistantContentPart[] {
  const out: AssistantContentPart[] = [];
  const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
  if (reasoning !== undefined && reasoning !== '') out.push({ type: 'reasoning', text: reasoning });
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') out.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    // Some OpenAI-compatible servers answer with content parts.
    for (const part of content) {
      if (isObject(part) && part.type === 'text' && typeof part.text === 'string') out.push({ type: 'text', text: part.text });
      else if (isObject(part) && part.type === 'refusal' && typeof part.refusal === 'string') out.push({ type: 'refusal', text: part.refusal });
    }
  }
  const refusal = asString(message.refusal);
  if (refusal !== undefined && refusal !== '') out.push({ type: 'refusal', text: refusal });
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, i) => {
      const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
      const name = fn === undefined ? undefined : asString(fn.name);
      if (!isObject(call) || name === undefined) {
        warnings.push(dropped(`choices[0].message.tool_calls[${i}]`, 'it is not a function call'));
        return;
      }
      const args = fn?.arguments;
      out.push({
        type: 'tool_call',
        id: asString(call.id) ?? `call_${i}`,
        name,
        arguments: argumentsText(args),
      });
    });
  }
  if (isObject(message.function_call) && typeof message.function_call.name === 'string') {
    const args = message.function_call.arguments;
    out.push({
      type: 'tool_call',
      id: `call_${message.function_call.name}_0`,
      name: message.function_call.name,
      arguments: typeof args === 'string' ? args : '{}',
    });
  }
  if (message.audio !== undefined && message.audio !== null) {
    warnings.push(dropped('choices[0].message.audio', 'audio output has no IR equivalent'));
  }
  return out;
}

/**
 * The tool calls of every choice (`Codec.answerToolCalls`): function calls and custom tool
 * calls by name, the legacy `function_call` too; a call of another kind, or without a name, is null.
 */
export function answerToolCalls(body: unknown): Array<string | null> {
  if (!isObject(body) || !Array.isArray(body.choices)) return [];
  const out: Array<string | null> = [];
  for (const choice of body.choices) {
    const message = isObject(choice) && isObject(choice.message) ? choice.message : undefined;
    if (message === undefined) continue;
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        const type = isObject(call) ? (asString(call.type) ?? 'function') : undefined;
        const inner = type !== undefined && isObject(call) ? call[type] : undefined;
        const name = isObject(inner) ? asString(inner.name) : undefined;
        out.push(name === undefined || name === '' ? null : name);
      }
    }
    if (message.function_call !== undefined && message.function_call !== null) {
      const name = isObject(message.function_call) ? asString(message.function_call.name) : undefined;
      out.push(name === undefined || name === '' ? null : name);
    }
  }
  return out;
}
