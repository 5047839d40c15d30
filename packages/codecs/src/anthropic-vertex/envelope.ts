/**
 * The Anthropic-on-Vertex envelope (the raw plan): the Messages body, with `model` moved into the
 * URL (`…/publishers/anthropic/models/{model}:rawPredict` or `:streamRawPredict`) and
 * `anthropic_version` in the body instead of a header. Content is never touched.
 */
import type { JsonObject } from '../shared/guards.js';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * An Anthropic Messages body → its Vertex form, without going through the IR: `model` removed,
 * `anthropic_version` added (a `vertex-…` version already present is kept). Every other value is
 * the same object as in the input, so content (cache_control, thinking signatures) is untouched.
 */
export function toVertexEnvelope(anthropicBody: JsonObject): JsonObject {
  const version = anthropicBody['anthropic_version'];
  const out: JsonObject = {
    anthropic_version: typeof version === 'string' && version.startsWith('vertex-') ? version : VERTEX_ANTHROPIC_VERSION,
  };
  for (const [key, value] of Object.entries(anthropicBody)) {
    if (key !== 'model' && key !== 'anthropic_version') out[key] = value;
  }
  return out;
}

/** The reverse: a Vertex body → an Anthropic Messages body (`anthropic_version` removed, `model` set when given). */
export function fromVertexEnvelope(vertexBody: JsonObject, model?: string): JsonObject {
  const out: JsonObject = model === undefined ? {} : { model };
  for (const [key, value] of Object.entries(vertexBody)) {
    if (key !== 'anthropic_version' && !(key === 'model' && model !== undefined)) out[key] = value;
  }
  return out;
}
