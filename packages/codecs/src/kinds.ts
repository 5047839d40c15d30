/**
 * The token-counting and embeddings endpoints of the formats that have them, by format. Apart
 * from the generation codecs: a bundle that counts or embeds nothing holds none of this
 * (`@tollgate/codecs/kinds`).
 */
import { anthropicCountTokens } from './anthropic-messages/count-tokens.js';
import { bedrockCountTokens } from './bedrock-converse/count-tokens.js';
import type { CountTokensCodec, EmbeddingsCodec } from './codec.js';
import { geminiCountTokens } from './gemini/count-tokens.js';
import { geminiEmbeddings } from './gemini/embeddings.js';
import type { WireFormat } from './ir/wire-format.js';
import { openaiEmbeddings } from './openai-chat/embeddings.js';
import { openaiResponsesCountTokens } from './openai-responses/count-tokens.js';

/** Token counting: Anthropic count_tokens, OpenAI responses/input_tokens, Gemini :countTokens, Bedrock CountTokens. */
export const countTokensCodecs: Readonly<Partial<Record<WireFormat, CountTokensCodec>>> = Object.freeze({
  anthropic_messages: anthropicCountTokens,
  openai_responses: openaiResponsesCountTokens,
  gemini_generate_content: geminiCountTokens,
  bedrock_converse: bedrockCountTokens,
});

/** Embeddings: OpenAI /v1/embeddings (on openai_chat), Gemini :embedContent / :batchEmbedContents. */
export const embeddingsCodecs: Readonly<Partial<Record<WireFormat, EmbeddingsCodec>>> = Object.freeze({
  openai_chat: openaiEmbeddings,
  gemini_generate_content: geminiEmbeddings,
});
