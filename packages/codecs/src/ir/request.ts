import type { TextPart } from './content.js';
import type { Message } from './message.js';
import type { ToolChoice, ToolDefinition } from './tool.js';
import type { WireFormat } from './wire-format.js';

export type ResponseFormat =
  | { type: 'text' }
  /** Any JSON object (OpenAI `json_object`). */
  | { type: 'json' }
  | { type: 'json_schema'; name?: string; description?: string; schema: Record<string, unknown>; strict?: boolean };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

export interface ReasoningConfig {
  /** Explicitly off (Anthropic `thinking.type: disabled`, Gemini budget 0, effort `none`). */
  enabled?: boolean;
  effort?: ReasoningEffort;
  /** A token budget for thinking (Anthropic `budget_tokens`, Gemini `thinkingBudget`). */
  budgetTokens?: number;
  /** OpenAI Responses reasoning summary mode. */
  summary?: 'auto' | 'concise' | 'detailed';
  /** Gemini `includeThoughts`: return thought summaries. */
  includeThoughts?: boolean;
}

/**
 * Fields of the source format that have no IR equivalent but are valid wire fields. They are
 * re-emitted when encoding to the same format and dropped with a warning otherwise.
 */
export interface VendorFields {
  format: WireFormat;
  fields: Record<string, unknown>;
}

/** A model request in canonical form. */
export interface Request {
  /** The model as the client named it; absent when it travels outside the body (Gemini URL). */
  model?: string;
  system: TextPart[];
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningConfig;
  stream: boolean;
  /** The client asked for usage in the stream (OpenAI `stream_options.include_usage`). */
  includeUsage?: boolean;
  /** An end-user identifier (OpenAI `user`, Anthropic `metadata.user_id`). */
  user?: string;
  metadata?: Record<string, string>;
  serviceTier?: string;
  vendor?: VendorFields;
}
