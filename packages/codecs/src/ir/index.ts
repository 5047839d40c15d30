export { isWireFormat, WIRE_FORMATS, ISSUER_OF_FORMAT } from './wire-format.js';
export type { WireFormat, Issuer } from './wire-format.js';
export type { CacheControl } from './cache-control.js';
export type {
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
} from './content.js';
export type { UserMessage, AssistantMessage, ToolMessage, Message } from './message.js';
export type { ToolDefinition, ToolChoice } from './tool.js';
export type { UnifiedFinishReason, FinishReason } from './finish-reason.js';
export { emptyUsage, promptTokens } from './usage.js';
export type { Usage } from './usage.js';
export type { ResponseFormat, ReasoningEffort, ReasoningConfig, VendorFields, Request } from './request.js';
export type { Response } from './response.js';
export type { BlockStart, StreamEvent, StreamEventType } from './stream-event.js';
export type { ConversionWarning } from './warning.js';
export type { EmbedRequest, EmbedResponse } from './embedding.js';
export { plainCost, choiceCount } from './cost.js';
export type { CostField, CostFields } from './cost.js';
