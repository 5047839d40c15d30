export {
  createFrameReader, streamContentType, codecTable, codecOf, convertRequestWith, convertResponseWith,
  convertStreamWith, convertStreamChunks, decodeStreamWith, encodeStreamWith, createSseReader, sseEvent,
  DEFAULT_MAX_EVENT_BYTES, statefulFeatures, utf8Bytes, shapePromptCache, MAX_CACHE_BREAKPOINTS,
  toVertexEnvelope, fromVertexEnvelope, VERTEX_ANTHROPIC_VERSION, isWireFormat, WIRE_FORMATS,
  ISSUER_OF_FORMAT, emptyUsage, promptTokens, plainCost, choiceCount, errorInfo, codeForStatus,
  isTimeoutError, ERROR_CODES, GatewayError,
} from './base.js';
export type {
  CodecTable, ConvertRequestOptions, ConvertRequestResult, ConvertResponseResult, ByteSource,
  ConvertStreamOptions, SseMessage, SseReader, SseReaderOptions, CacheShapingOptions, WireFormat, Issuer,
  CacheControl, MediaSource, TextPart, ImagePart, FilePart, ReasoningPart, ToolCallPart, ToolResultPart,
  RefusalPart, UserContentPart, AssistantContentPart, ToolContentPart, ContentPart, UserMessage,
  AssistantMessage, ToolMessage, Message, ToolDefinition, ToolChoice, UnifiedFinishReason, FinishReason,
  Usage, ResponseFormat, ReasoningEffort, ReasoningConfig, VendorFields, Request, Response, BlockStart,
  StreamEvent, StreamEventType, ConversionWarning, EmbedRequest, EmbedResponse, CostField, CostFields,
  ErrorCode, ErrorInfo, GatewayErrorOptions, Family, DecodeRequestOptions, DecodedRequest,
  EncodeRequestOptions, EncodedRequest, DecodedResponse, EncodeResponseOptions, EncodedResponse,
  StreamDecoder, StreamEncoderOptions, StreamWrite, StreamEncoder, StreamFrameReader,
  StreamFrameReaderOptions, StreamFraming, ErrorHeaders, RenderedError, CountTokensCodec, DecodedEmbedRequest,
  EncodeEmbedResponseOptions, EmbeddingsCodec, Codec,
} from './base.js';
export { codecs, getCodec, hasCodec } from './registry.js';
export { convertRequest, convertResponse } from './convert.js';
export { convertStream, decodeStream, encodeStream } from './convert-stream.js';
export { countTokensCodecs, embeddingsCodecs } from './kinds.js';
