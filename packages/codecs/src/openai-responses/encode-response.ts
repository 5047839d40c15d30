/** The canonical response → a Responses response object for the client. */
import type { EncodedResponse, EncodeResponseOptions } from '../codec.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { dropped } from '../shared/warnings.js';
import { encodeFinishReason } from './finish-reason.js';
import { outputItems, responseObject } from './output-items.js';
import { FORMAT, responseId, spliceKept } from './schemas.js';
import { encodeUsage } from './usage.js';

export function encodeResponse(response: Response, options: EncodeResponseOptions = {}): EncodedResponse {
  const warnings: ConversionWarning[] = [];
  const id = responseId(response.id);
  const vendor = response.vendor?.format === FORMAT ? { ...response.vendor.fields } : {};
  const output = spliceKept(outputItems(response.content, id, warnings), vendor.output);
  delete vendor.output;
  const { status, incomplete_details: incompleteDetails } = encodeFinishReason(response.finishReason);
  const body = responseObject({
    id,
    model: options.model ?? response.model,
    createdAt: response.created ?? 0,
    status,
    incompleteDetails,
    output,
    usage: response.usage === null ? null : encodeUsage(response.usage),
  });
  // Request echoes from a Responses upstream (tools, text, temperature, …) replace the neutral values.
  for (const [key, value] of Object.entries(vendor)) body[key] = value;
  if (response.vendor !== undefined && response.vendor.format !== FORMAT) {
    for (const key of Object.keys(response.vendor.fields)) {
      warnings.push(dropped(key, `it is a ${response.vendor.format} field with no OpenAI Responses equivalent`));
    }
  }
  return { body, warnings };
}
