/** Bedrock Converse response body → canonical response. */
import type { DecodedResponse } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, isObject, type JsonObject } from '../shared/guards.js';
import { decodeAssistantBlocks } from './decode-content.js';
import { decodeFinishReason } from './finish-reason.js';
import { FORMAT, type DecodeContext } from './schemas.js';
import { decodeUsage } from './usage.js';

/** Keys read into the IR; `metrics` (latency) describes the call, not the answer. */
const RESPONSE_KEYS = new Set(['output', 'stopReason', 'usage', 'metrics']);

export function decodeResponse(body: unknown): DecodedResponse {
  if (!isObject(body)) throw new GatewayError('upstream_error', 'The upstream returned a response body that is not a JSON object.');
  const message = isObject(body['output']) && isObject(body['output']['message']) ? body['output']['message'] : undefined;
  const blocks = message === undefined ? undefined : asArray(message['content']);
  if (blocks === undefined) throw new GatewayError('upstream_error', 'The upstream response has no output message.');
  const warnings: ConversionWarning[] = [];
  const ctx: DecodeContext = { strict: false, warnings };
  const response: Response = {
    // Converse names neither the response nor the model in the body.
    id: '',
    model: '',
    content: decodeAssistantBlocks(blocks, 'output.message.content', ctx),
    finishReason: decodeFinishReason(body['stopReason']),
    usage: isObject(body['usage']) ? decodeUsage(body['usage']) : null,
  };
  // additionalModelResponseFields, trace, performanceConfig, serviceTier: Bedrock's own.
  const fields: JsonObject = {};
  for (const key of Object.keys(body)) if (!RESPONSE_KEYS.has(key)) fields[key] = body[key];
  if (Object.keys(fields).length > 0) response.vendor = { format: FORMAT, fields };
  return { response, warnings };
}
