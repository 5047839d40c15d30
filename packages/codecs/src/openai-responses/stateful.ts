/**
 * Stateful Responses features: what only an OpenAI Responses upstream can honour. The gateway
 * uses this to refuse, with a canonical `unsupported_feature` error, a request it would
 * otherwise have to translate into a format that silently ignores them.
 */
import type { Request } from '../ir/request.js';
import { isObject } from '../shared/guards.js';
import { FORMAT } from './schemas.js';

/**
 * The names of the stateful features a decoded Responses request uses: `previous_response_id`,
 * `conversation`, `background`, `prompt` (a stored prompt template), `tools.<type>` for each
 * built-in (or custom) tool and `input.<type>` for each input item with no canonical form
 * (`item_reference`, built-in tool calls and their outputs). `store` alone is not one: it is a
 * plain vendor field. Empty for requests decoded from any other format.
 */
export function statefulFeatures(request: Request): string[] {
  const vendor = request.vendor;
  if (vendor === undefined || vendor.format !== FORMAT) return [];
  const fields = vendor.fields;
  const out = new Set<string>();
  if (typeof fields.previous_response_id === 'string' && fields.previous_response_id !== '') out.add('previous_response_id');
  if (fields.conversation !== undefined && fields.conversation !== null) out.add('conversation');
  if (fields.background === true) out.add('background');
  if (fields.prompt !== undefined && fields.prompt !== null) out.add('prompt');
  if (Array.isArray(fields.tools)) {
    for (const tool of fields.tools) if (isObject(tool) && typeof tool.type === 'string') out.add(`tools.${tool.type}`);
  }
  if (Array.isArray(fields.input)) {
    for (const kept of fields.input) {
      if (isObject(kept) && isObject(kept.item) && typeof kept.item.type === 'string') out.add(`input.${kept.item.type}`);
    }
  }
  return [...out];
}
