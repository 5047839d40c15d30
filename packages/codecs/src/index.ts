export * from './base.js';
export { codecs, getCodec, hasCodec } from './registry.js';
export { convertRequest, convertResponse } from './convert.js';
export { convertStream, decodeStream, encodeStream } from './convert-stream.js';
export { countTokensCodecs, embeddingsCodecs } from './kinds.js';
