/**
 * `@tollgate/codecs/base`: everything but the codecs themselves — the canonical IR, errors, the
 * `Codec` contract, SSE, and conversions that take codec objects. Pair it with the formats you
 * need (`@tollgate/codecs/openai-chat`, `/openai-responses`, `/anthropic-messages`,
 * `/anthropic-vertex`, `/gemini`, `/bedrock-converse`) and a bundle holds only those. The root entry re-exports all
 * of this, plus the table of every codec and the conversions by format name.
 */
export { isWireFormat, WIRE_FORMATS, ISSUER_OF_FORMAT, emptyUsage, promptTokens, plainCost, choiceCount } from './ir/index.js';
export type {
  WireFormat,
  Issuer,
  CacheControl,
  MediaSource,
  TextPart,
  ImagePart,
  FilePart,
  ReasoningPart,
  ToolCallPart,
  ToolResultPart,
  RefusalPart,
  UserContentPart,
  AssistantContentPart,
  ToolContentPart,
  ContentPart,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  Message,
  ToolDefinition,
  ToolChoice,
  UnifiedFinishReason,
  FinishReason,
  Usage,
  ResponseFormat,
  ReasoningEffort,
  ReasoningConfig,
  VendorFields,
  Request,
  Response,
  BlockStart,
  StreamEvent,
  StreamEventType,
  ConversionWarning,
  EmbedRequest,
  EmbedResponse,
  CostField,
  CostFields,
} from './ir/index.js';
export { errorInfo, codeForStatus, isTimeoutError, ERROR_CODES, GatewayError } from './errors/gateway-error.js';
export type { ErrorCode, ErrorInfo, GatewayErrorOptions } from './errors/gateway-error.js';
export type {
  Family,
  DecodeRequestOptions,
  DecodedRequest,
  EncodeRequestOptions,
  EncodedRequest,
  DecodedResponse,
  EncodeResponseOptions,
  EncodedResponse,
  StreamDecoder,
  StreamEncoderOptions,
  StreamWrite,
  StreamEncoder,
  StreamFrameReader,
  StreamFrameReaderOptions,
  StreamFraming,
  ErrorHeaders,
  RenderedError,
  CountTokensCodec,
  DecodedEmbedRequest,
  EncodeEmbedResponseOptions,
  EmbeddingsCodec,
  Codec,
} from './codec.js';
export { createFrameReader, streamContentType } from './stream-framing.js';
export { codecTable, codecOf, type CodecTable } from './codec-table.js';
export { convertRequestWith, convertResponseWith } from './convert-with.js';
export type { ConvertRequestOptions, ConvertRequestResult, ConvertResponseResult } from './convert-with.js';
export { convertStreamWith, convertStreamChunks, decodeStreamWith, encodeStreamWith } from './convert-stream-with.js';
export type { ByteSource, ConvertStreamOptions } from './convert-stream-with.js';
export { createSseReader, sseEvent, DEFAULT_MAX_EVENT_BYTES } from './sse/parse.js';
export type { SseMessage, SseReader, SseReaderOptions } from './sse/parse.js';
export { statefulFeatures } from './openai-responses/stateful.js';
export { utf8Bytes } from './shared/utf8.js';
export { shapePromptCache, MAX_CACHE_BREAKPOINTS } from './cache-shaping.js';
export type { CacheShapingOptions } from './cache-shaping.js';
export { toVertexEnvelope, fromVertexEnvelope, VERTEX_ANTHROPIC_VERSION } from './anthropic-vertex/envelope.js';
