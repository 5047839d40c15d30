/**
 * The refusal for a model the caller may use but that is not offered through the API they
 * called (an OpenAI client asking for a model served only to Anthropic clients). Only reached
 * after the access decision: a caller who may not use the model gets the same answer as for an
 * unknown one, so this message tells nothing to anyone who could not already call the model.
 */
import { GatewayError, type WireFormat } from '@tollgate/codecs/base';
import type { Model, Registry } from '../registry/index.js';

const API_NAMES: Record<WireFormat, string> = {
  openai_chat: 'OpenAI Chat Completions',
  openai_responses: 'OpenAI Responses',
  anthropic_messages: 'Anthropic Messages',
  anthropic_vertex: 'Anthropic on Vertex',
  gemini_generate_content: 'Gemini generateContent',
  bedrock_converse: 'Amazon Bedrock Converse',
};

export function notOfferedError(registry: Registry, model: Model, format: WireFormat, requested: string): GatewayError {
  const elsewhere = model.entryFormats.flatMap((f) => {
    const route = f === format ? undefined : registry.entryRoutes.find((r) => r.format === f && r.kind === 'generate');
    return route === undefined ? [] : [`${API_NAMES[f]} (${route.path})`];
  });
  const where = elsewhere.length === 0 ? '' : `; it is offered through ${elsewhere.join(', ')}`;
  return new GatewayError('model_not_found', `The model '${requested}' is not offered through the ${API_NAMES[format]} API here${where}.`, {
    param: 'model',
  });
}
