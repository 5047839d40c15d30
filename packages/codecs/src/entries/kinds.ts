/** `@tollgate/codecs/kinds`: the token-counting and embeddings codecs, by format. */
export { countTokensCodecs, embeddingsCodecs } from '../kinds.js';
