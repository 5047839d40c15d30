/** Canonical response → Bedrock Converse response body. */
import type { EncodedResponse, EncodeResponseOptions } from '../codec.js';
import type { FinishReason } from '../ir/finish-reason.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import type { JsonObject } from '../shared/guards.js';
import { dropped } from '../shared/warnings.js';
import { encodeAssistantPart } from './encode-content.js';
import { encodeFinishReason } from './finish-reason.js';
import { FORMAT } from './schemas.js';
import { encodeUsage } from './usage.js';

/**
 * The stop reason to show a Bedrock client. A turn that ends with tool calls is `tool_use` even
 * when the upstream said "stop" (Gemini does), or the client would not run the tools.
 */
export function stopReasonFor(reason: FinishReason, hasToolCalls: boolean): string {
  const stop = encodeFinishReason(reason);
  return hasToolCalls && stop === 'end_turn' ? 'tool_use' : stop;
}

export function encodeResponse(response: Response, options: EncodeResponseOptions = {}): EncodedResponse {
  void options; // Converse names no model in the body
  const warnings: ConversionWarning[] = [];
  const content: JsonObject[] = [];
  response.content.forEach((part, i) => content.push(...encodeAssistantPart(part, `content[${i}]`, warnings, false)));
  const body: JsonObject = {
    output: { message: { role: 'assistant', content } },
    stopReason: stopReasonFor(
      response.finishReason,
      response.content.some((p) => p.type === 'tool_call'),
    ),
    usage: encodeUsage(response.usage),
    metrics: { latencyMs: 0 },
  };
  const vendor = response.vendor;
  if (vendor !== undefined && vendor.format === FORMAT) {
    for (const [key, value] of Object.entries(vendor.fields)) if (!(key in body)) body[key] = value;
  } else if (vendor !== undefined) {
    for (const key of Object.keys(vendor.fields)) warnings.push(dropped(key, `a field of ${vendor.format} with no ${FORMAT} equivalent`));
  }
  return { body, warnings };
}
