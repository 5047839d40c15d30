/**
 * Bedrock `POST /model/{modelId}/count-tokens` (CountTokens): `{ "input": { "converse": … } }`
 * holding the Converse request's messages, system, tools and model fields, answered with
 * `{ "inputTokens": n }`. The `invokeModel` input (a model-native body) has no canonical form.
 */
import type { CountTokensCodec } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import { countIn, onlyFields } from '../shared/count-tokens.js';
import { isObject } from '../shared/guards.js';
import { decodeRequest } from './decode-request.js';
import { encodeRequest } from './encode-request.js';
import { invalid } from './schemas.js';

const FIELDS = new Set(['messages', 'system', 'toolConfig', 'additionalModelRequestFields']);
const IRRELEVANT = new Set(['inferenceConfig', 'requestMetadata', 'serviceTier', 'user', 'seed', 'frequency_penalty', 'presence_penalty', 'service_tier']);

export const bedrockCountTokens: CountTokensCodec = {
  decodeRequest(body, options) {
    if (!isObject(body) || !isObject(body['input'])) throw invalid('input', 'must be an object holding converse');
    const input = body['input'];
    if (input['invokeModel'] !== undefined) {
      throw new GatewayError('unsupported_feature', 'input.invokeModel: counting a model-native body is not supported; send input.converse.', {
        param: 'input.invokeModel',
      });
    }
    if (!isObject(input['converse'])) throw invalid('input.converse', 'must be a Converse request object');
    return decodeRequest(input['converse'], options);
  },
  encodeRequest(request, options) {
    const encoded = onlyFields(encodeRequest(request, options), FIELDS, IRRELEVANT);
    return { body: { input: { converse: encoded.body } }, warnings: encoded.warnings };
  },
  decodeResponse: (body) => countIn(body, 'inputTokens'),
  encodeResponse: (inputTokens) => ({ inputTokens }),
};
