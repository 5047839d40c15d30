/**
 * `@tollgate/codecs/anthropic-vertex`: the Anthropic-on-Vertex codec (`anthropic_vertex`). It is
 * the Messages grammar in another envelope, so it brings the Anthropic Messages code with it.
 */
export { anthropicVertexCodec } from '../anthropic-vertex/index.js';
