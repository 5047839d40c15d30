/**
 * Anthropic `POST /v1/messages/count_tokens`: a Messages request without `max_tokens` and
 * `stream`, answered with `{ "input_tokens": n }`.
 */
import type { CountTokensCodec } from '../codec.js';
import { countIn, onlyFields } from '../shared/count-tokens.js';
import { decodeRequest } from './decode-request.js';
import { encodeRequest } from './encode-request.js';

const FIELDS = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'mcp_servers',
  'context_management',
  'output_format',
  'output_config',
]);
/** Generation settings counting has no use for: never sent, never a loss. */
const IRRELEVANT = new Set([
  'max_tokens',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'metadata',
  'service_tier',
  'seed',
  'frequency_penalty',
  'presence_penalty',
]);

export const anthropicCountTokens: CountTokensCodec = {
  decodeRequest: (body, options) => decodeRequest(body, options),
  encodeRequest: (request, options) => onlyFields(encodeRequest(request, options), FIELDS, IRRELEVANT),
  decodeResponse: (body) => countIn(body, 'input_tokens'),
  encodeResponse: (inputTokens) => ({ input_tokens: inputTokens }),
};
