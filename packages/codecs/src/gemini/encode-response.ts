/** Canonical response → Gemini `GenerateContentResponse`. */
import type { EncodedResponse, EncodeResponseOptions } from '../codec.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { dropped } from '../shared/warnings.js';
import { blockedPrompt } from './decode-response.js';
import { encodeModelParts } from './encode-parts.js';
import { encodeFinishReason } from './finish-reason.js';
import { FORMAT } from './schemas.js';
import { encodeUsage } from './usage.js';

export function encodeResponse(response: Response, options: EncodeResponseOptions = {}): EncodedResponse {
  const warnings: ConversionWarning[] = [];
  const vendor = response.vendor?.format === FORMAT ? response.vendor.fields : {};
  const body: JsonObject = {};
  // A prompt Gemini blocked comes back as it was: no candidates, only the prompt feedback.
  const blocked =
    blockedPrompt(vendor) !== undefined &&
    response.finishReason.unified === 'content_filter' &&
    response.content.length > 0 &&
    response.content.every((p) => p.type === 'refusal');
  if (!blocked) {
    const parts = encodeModelParts(response.content, 'content', warnings, false);
    const candidate: JsonObject = {
      content: parts.length > 0 ? { parts, role: 'model' } : { role: 'model' },
      finishReason: encodeFinishReason(response.finishReason),
    };
    const extra = Array.isArray(vendor['candidates']) && isObject(vendor['candidates'][0]) ? vendor['candidates'][0] : { index: 0 };
    for (const [key, value] of Object.entries(extra)) if (!(key in candidate)) candidate[key] = value;
    body['candidates'] = [candidate];
  }
  if (response.usage !== null) {
    const usage = encodeUsage(response.usage);
    if (isObject(vendor['usageMetadata'])) for (const [k, v] of Object.entries(vendor['usageMetadata'])) if (!(k in usage)) usage[k] = v;
    body['usageMetadata'] = usage;
  } else if (isObject(vendor['usageMetadata'])) body['usageMetadata'] = vendor['usageMetadata'];
  body['modelVersion'] = options.model ?? response.model;
  body['responseId'] = response.id;
  for (const [key, value] of Object.entries(vendor)) if (!(key in body) && key !== 'candidates') body[key] = value;
  if (response.vendor !== undefined && response.vendor.format !== FORMAT) {
    for (const key of Object.keys(response.vendor.fields)) warnings.push(dropped(key, `a field of ${response.vendor.format} with no ${FORMAT} equivalent`));
  }
  return { body, warnings };
}
