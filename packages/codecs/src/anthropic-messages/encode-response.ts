/** Canonical response → Anthropic Messages response body. */
import type { EncodedResponse, EncodeResponseOptions } from '../codec.js';
import type { FinishReason } from '../ir/finish-reason.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { dropped } from '../shared/warnings.js';
import { encodeAssistantPart } from './encode-content.js';
import { encodeFinishReason } from './finish-reason.js';
import { FORMAT } from './schemas.js';
import { encodeUsage } from './usage.js';

/** Anthropic message ids start with `msg_`; others get the prefix. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id}`;
}

/**
 * The stop reason to show an Anthropic client. A turn that ends with tool calls is `tool_use`
 * even when the upstream said "stop" (Gemini does), or the client would not run the tools.
 */
export function stopReasonFor(reason: FinishReason, hasToolCalls: boolean): string {
  const stop = encodeFinishReason(reason);
  return hasToolCalls && stop === 'end_turn' ? 'tool_use' : stop;
}

export function encodeResponse(response: Response, options: EncodeResponseOptions = {}): EncodedResponse {
  const warnings: ConversionWarning[] = [];
  const content: JsonObject[] = [];
  response.content.forEach((part, i) => {
    const block = encodeAssistantPart(part, `content[${i}]`, warnings, false);
    if (block !== undefined) content.push(block);
  });
  const stopReason = stopReasonFor(
    response.finishReason,
    response.content.some((p) => p.type === 'tool_call'),
  );
  const usage: JsonObject = { ...encodeUsage(response.usage) };
  const body: JsonObject = {
    id: messageId(response.id),
    type: 'message',
    role: 'assistant',
    model: options.model ?? response.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? (response.stopSequence ?? null) : null,
    usage,
  };
  const vendor = response.vendor;
  if (vendor !== undefined && vendor.format === FORMAT) {
    for (const [key, value] of Object.entries(vendor.fields)) {
      if (key === 'usage' && isObject(value)) Object.assign(usage, value);
      else if (!(key in body)) body[key] = value;
    }
  } else if (vendor !== undefined) {
    for (const key of Object.keys(vendor.fields)) warnings.push(dropped(key, `a field of ${vendor.format} with no anthropic_messages equivalent`));
  }
  return { body, warnings };
}
