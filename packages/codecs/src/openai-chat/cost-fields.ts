/** OpenAI Chat fields that change what a request costs beyond its canonical form. */
import { choiceCount, plainCost, type CostFields } from '../ir/cost.js';
import type { Request } from '../ir/request.js';
import { isObject } from '../shared/guards.js';
import { utf8Bytes } from '../shared/utf8.js';
import { FORMAT } from './schemas.js';

/**
 * - `n`: every choice is billed its own output (multiplier).
 * - `prediction`: rejected predicted tokens are billed as output, beyond `max_completion_tokens`;
 *   there are at most as many as the prediction has UTF-8 bytes.
 * - `audio` / `modalities: ["audio"]`: audio output, billed at audio rates the registry does not price.
 * - `web_search_options`: searches billed per call, their results as input.
 * - `service_tier: "priority"`: billed above the standard rates.
 */
export function costFields(request: Request): CostFields {
  const out = plainCost();
  if (request.serviceTier === 'priority') {
    out.unbounded.push({ field: 'service_tier', reason: 'priority processing is billed above the rates the registry prices' });
  }
  const vendor = request.vendor;
  if (vendor === undefined || vendor.format !== FORMAT) return out;
  const f = vendor.fields;
  if (f.n !== undefined && f.n !== null) {
    const n = choiceCount(f.n);
    if (n === undefined) out.unbounded.push({ field: 'n', reason: 'it must be a whole number of choices (each choice is billed its own output)' });
    else out.outputMultiplier = n;
  }
  if (f.prediction !== undefined && f.prediction !== null) out.extraOutputTokens = utf8Bytes(JSON.stringify(f.prediction));
  const modalities = Array.isArray(f.modalities) ? f.modalities : [];
  if (modalities.includes('audio')) out.unbounded.push({ field: 'modalities', reason: 'audio output is billed at audio rates the registry does not price' });
  else if (isObject(f.audio)) out.unbounded.push({ field: 'audio', reason: 'audio output is billed at audio rates the registry does not price' });
  if (f.web_search_options !== undefined && f.web_search_options !== null) {
    out.unbounded.push({
      field: 'web_search_options',
      reason: 'web searches are billed per call and their results as input, which the request does not bound',
    });
  }
  return out;
}
