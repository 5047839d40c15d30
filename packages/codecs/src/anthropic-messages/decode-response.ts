/** Anthropic Messages response body → canonical response. */
import type { DecodedResponse } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AssistantContentPart } from '../ir/content.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, asString, isObject, type JsonObject } from '../shared/guards.js';
import { decodeAssistantBlock, type DecodeContext } from './decode-content.js';
import { decodeErrorObject } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { FORMAT } from './schemas.js';
import { decodeUsage, USAGE_KEYS } from './usage.js';

const MESSAGE_KEYS = new Set(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage']);

export function decodeResponse(body: unknown): DecodedResponse {
  if (!isObject(body)) throw new GatewayError('upstream_error', 'The upstream returned a response body that is not a JSON object.');
  if (body['type'] === 'error') {
    const info = decodeErrorObject(body['error']);
    throw new GatewayError(info.code, info.message, { status: info.status });
  }
  const blocks = asArray(body['content']);
  if (blocks === undefined) throw new GatewayError('upstream_error', 'The upstream response has no content array.');
  const warnings: ConversionWarning[] = [];
  const ctx: DecodeContext = { strict: false, warnings };
  const content: AssistantContentPart[] = [];
  blocks.forEach((block, i) => {
    const part = decodeAssistantBlock(block, `content[${i}]`, ctx);
    if (part !== undefined) content.push(part);
  });

  const stopReason = asString(body['stop_reason']);
  const response: Response = {
    id: asString(body['id']) ?? '',
    model: asString(body['model']) ?? '',
    content,
    finishReason: decodeFinishReason(stopReason),
    stopSequence: asString(body['stop_sequence']) ?? null,
    usage: isObject(body['usage']) ? decodeUsage(body['usage']) : null,
  };

  // Fields with no IR home (container, stop_details, usage.service_tier, …) survive a same-format round trip.
  const fields: JsonObject = {};
  for (const key of Object.keys(body)) if (!MESSAGE_KEYS.has(key)) fields[key] = body[key];
  const usage = body['usage'];
  if (isObject(usage)) {
    const extra: JsonObject = {};
    for (const key of Object.keys(usage)) if (!USAGE_KEYS.has(key)) extra[key] = usage[key];
    if (Object.keys(extra).length > 0) fields['usage'] = extra;
  }
  if (Object.keys(fields).length > 0) response.vendor = { format: FORMAT, fields };
  return { response, warnings };
}
