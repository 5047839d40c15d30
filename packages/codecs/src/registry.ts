import type { Codec } from './codec.js';
import { codecOf, type CodecTable } from './codec-table.js';
import type { WireFormat } from './ir/wire-format.js';
import { anthropicMessagesCodec } from './anthropic-messages/index.js';
import { openaiChatCodec } from './openai-chat/index.js';
import { openaiResponsesCodec } from './openai-responses/index.js';
import { geminiCodec } from './gemini/index.js';
import { anthropicVertexCodec } from './anthropic-vertex/index.js';
import { bedrockConverseCodec } from './bedrock-converse/index.js';

/**
 * The per-format codecs, keyed by wire format: every format. Importing this table (or anything
 * that uses it: `getCodec`, `convertRequest` …) brings every codec into a bundle; to bundle only
 * some, import them from `@tollgate/codecs/<format>` and use `@tollgate/codecs/base`.
 */
export const codecs = {
  openai_chat: openaiChatCodec,
  openai_responses: openaiResponsesCodec,
  anthropic_messages: anthropicMessagesCodec,
  gemini_generate_content: geminiCodec,
  anthropic_vertex: anthropicVertexCodec,
  bedrock_converse: bedrockConverseCodec,
} as const satisfies Record<WireFormat, Codec>;

const byFormat: CodecTable = codecs;

/** The codec for a format, or a canonical `unsupported_feature` error when there is none. */
export function getCodec(format: WireFormat): Codec {
  return codecOf(byFormat, format);
}

export function hasCodec(format: string): format is WireFormat {
  return (byFormat as Record<string, Codec | undefined>)[format] !== undefined;
}
