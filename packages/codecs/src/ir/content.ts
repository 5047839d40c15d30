import type { CacheControl } from './cache-control.js';
import type { Issuer } from './wire-format.js';

/** Where binary content comes from: inline bytes (base64) or a URL the vendor fetches. */
export type MediaSource =
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'url'; url: string; mediaType?: string }
  /** A vendor-side file handle (OpenAI `file_id`, Gemini `fileData.fileUri`, Anthropic file id). */
  | { kind: 'file_id'; fileId: string; mediaType?: string };

export interface TextPart {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
}

export interface ImagePart {
  type: 'image';
  source: MediaSource;
  /** OpenAI's `detail` hint (low, high, auto); other formats ignore it. */
  detail?: string;
  cacheControl?: CacheControl;
}

/** A document or other file (PDF, audio, plain text) given to the model as input. */
export interface FilePart {
  type: 'file';
  source: MediaSource;
  filename?: string;
  cacheControl?: CacheControl;
}

/**
 * Model reasoning. `text` is the visible thinking or summary; the opaque values are only
 * valid for the vendor that issued them (`issuer`), and encoders drop them with a warning
 * when the target is another vendor.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Anthropic thinking `signature`, or a Gemini `thoughtSignature` on a thought part. */
  signature?: string;
  /** Anthropic `redacted_thinking.data`: encrypted thinking with no visible text. */
  redactedData?: string;
  /** OpenAI Responses `encrypted_content` of a reasoning item. */
  encryptedContent?: string;
  /** OpenAI Responses reasoning item id (rs_…). */
  itemId?: string;
  /** The vendor that issued `signature`, `redactedData` or `encryptedContent`. */
  issuer?: Issuer;
  cacheControl?: CacheControl;
}

/** A tool call made by the assistant. `arguments` is JSON text, exactly as the model wrote it. */
export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  arguments: string;
  /** Gemini `thoughtSignature` attached to a `functionCall` part (issuer: google). */
  thoughtSignature?: string;
  /** OpenAI Responses function_call item id (fc_…), distinct from the call id. */
  itemId?: string;
  cacheControl?: CacheControl;
}

/** The result of a tool call, sent back by the client. */
export interface ToolResultPart {
  type: 'tool_result';
  toolCallId: string;
  /** The tool name when the wire format carries it (Gemini functionResponse). */
  toolName?: string;
  content: Array<TextPart | ImagePart | FilePart>;
  isError?: boolean;
  cacheControl?: CacheControl;
}

/** A refusal emitted by the model instead of content (OpenAI `refusal`). */
export interface RefusalPart {
  type: 'refusal';
  text: string;
}

export type UserContentPart = TextPart | ImagePart | FilePart;
export type AssistantContentPart = TextPart | ReasoningPart | ToolCallPart | RefusalPart | ImagePart;
export type ToolContentPart = ToolResultPart;
export type ContentPart = UserContentPart | AssistantContentPart | ToolContentPart;
