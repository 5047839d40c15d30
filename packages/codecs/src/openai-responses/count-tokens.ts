/**
 * OpenAI `POST /v1/responses/input_tokens`: a Responses request without output settings,
 * answered with `{ "object": "response.input_tokens", "input_tokens": n }`.
 */
import type { CountTokensCodec } from '../codec.js';
import { countIn, onlyFields } from '../shared/count-tokens.js';
import { decodeRequest } from './decode-request.js';
import { encodeRequest } from './encode-request.js';

const FIELDS = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'text',
  'truncation',
  'conversation',
  'previous_response_id',
]);
const IRRELEVANT = new Set([
  'max_output_tokens',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'store',
  'include',
  'metadata',
  'user',
  'service_tier',
  'seed',
  'frequency_penalty',
  'presence_penalty',
  'top_logprobs',
  'background',
  'prompt_cache_key',
  'safety_identifier',
]);

export const openaiResponsesCountTokens: CountTokensCodec = {
  decodeRequest: (body, options) => decodeRequest(body, options),
  encodeRequest: (request, options) => onlyFields(encodeRequest(request, options), FIELDS, IRRELEVANT),
  decodeResponse: (body) => countIn(body, 'input_tokens'),
  encodeResponse: (inputTokens) => ({ object: 'response.input_tokens', input_tokens: inputTokens }),
};
