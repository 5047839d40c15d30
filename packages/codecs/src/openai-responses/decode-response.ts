/** A Responses response object → the canonical response. */
import type { DecodedResponse } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AssistantContentPart, ReasoningPart } from '../ir/content.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asNumber, asString, isObject, type JsonObject } from '../shared/guards.js';
import { argumentsText } from '../shared/openai-content.js';
import { dropped } from '../shared/warnings.js';
import { decodeError } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { FORMAT, RESPONSE_FIELDS, summaryTexts, type KeptItem } from './schemas.js';
import { decodeUsage } from './usage.js';

function malformed(message: string): never {
  throw new GatewayError('upstream_error', message, { status: 502 });
}

function raise(body: unknown): never {
  const info = decodeError(0, body);
  throw new GatewayError(info.code, info.message, { status: info.status, ...(info.param === undefined ? {} : { param: info.param }) });
}

export function decodeResponse(body: unknown): DecodedResponse {
  if (!isObject(body)) malformed('The upstream response is not a JSON object.');
  if (!Array.isArray(body.output)) {
    if (isObject(body.error)) raise(body);
    malformed('The upstream response has no output array.');
  }
  if (body.status === 'failed') raise({ error: isObject(body.error) ? body.error : { message: 'The upstream response failed.' } });
  const warnings: ConversionWarning[] = [];
  const content: AssistantContentPart[] = [];
  const kept: KeptItem[] = [];
  body.output.forEach((item, i) => {
    if (!isObject(item)) {
      warnings.push(dropped(`output[${i}]`, 'it is not an object'));
      return;
    }
    const parts = outputItemParts(item, `output[${i}]`, warnings);
    if (parts === undefined) kept.push({ at: i, item });
    else content.push(...parts);
  });

  const details = isObject(body.incomplete_details) ? body.incomplete_details : {};
  const response: Response = {
    id: asString(body.id) ?? '',
    model: asString(body.model) ?? '',
    content,
    finishReason: decodeFinishReason(
      body.status,
      details.reason,
      content.some((p) => p.type === 'tool_call'),
    ),
    usage: decodeUsage(body.usage),
  };
  const created = asNumber(body.created_at);
  if (created !== undefined) response.created = created;

  // Request echoes and the rest (tools, text, billing, …) survive a same-format round trip.
  const fields: JsonObject = {};
  for (const [key, value] of Object.entries(body)) if (!RESPONSE_FIELDS.has(key) && value !== undefined) fields[key] = value;
  if (kept.length > 0) fields.output = kept;
  if (Object.keys(fields).length > 0) response.vendor = { format: FORMAT, fields };
  return { response, warnings };
}

/** One output item → IR parts; undefined for items with no IR form (built-in tool calls). */
export function outputItemParts(item: JsonObject, path: string, warnings: ConversionWarning[]): AssistantContentPart[] | undefined {
  switch (item.type) {
    case 'message': {
      const out: AssistantContentPart[] = [];
      const parts = Array.isArray(item.content) ? item.content : [];
      parts.forEach((part, j) => {
        if (isObject(part) && part.type === 'output_text' && typeof part.text === 'string') out.push({ type: 'text', text: part.text });
        else if (isObject(part) && part.type === 'refusal' && typeof part.refusal === 'string') out.push({ type: 'refusal', text: part.refusal });
        else warnings.push(dropped(`${path}.content[${j}]`, 'it is not output_text or a refusal'));
      });
      return out;
    }
    case 'function_call': {
      const name = asString(item.name);
      if (name === undefined) {
        warnings.push(dropped(path, 'a function call without a name'));
        return [];
      }
      const args = item.arguments;
      const part: AssistantContentPart = {
        type: 'tool_call',
        id: asString(item.call_id) ?? asString(item.id) ?? '',
        name,
        arguments: argumentsText(args),
      };
      const itemId = asString(item.id);
      if (itemId !== undefined) part.itemId = itemId;
      return [part];
    }
    case 'reasoning':
      return reasoningParts(item);
    default:
      return undefined;
  }
}

/**
 * A reasoning item → one IR part per summary text (at least one), all with the item id; the first
 * carries the encrypted content. Encoding joins them back into one item.
 */
export function reasoningParts(item: JsonObject, texts: string[] = summaryTexts(item.summary)): ReasoningPart[] {
  const itemId = asString(item.id);
  const encrypted = asString(item.encrypted_content);
  if (texts.length === 0) texts.push('');
  return texts.map((text, k) => {
    const part: ReasoningPart = { type: 'reasoning', text, issuer: 'openai' };
    if (itemId !== undefined) part.itemId = itemId;
    if (k === 0 && encrypted !== undefined) part.encryptedContent = encrypted;
    return part;
  });
}
