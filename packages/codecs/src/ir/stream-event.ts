import type { ErrorInfo } from '../errors/gateway-error.js';
import type { FinishReason } from './finish-reason.js';
import type { Issuer } from './wire-format.js';
import type { Usage } from './usage.js';

export type BlockStart =
  | { kind: 'text' }
  | { kind: 'refusal' }
  | {
      kind: 'reasoning';
      /** Anthropic redacted thinking: the whole block is this opaque value. */
      redactedData?: string;
      /** OpenAI Responses reasoning item id and encrypted content. */
      itemId?: string;
      encryptedContent?: string;
      issuer?: Issuer;
    }
  | { kind: 'tool_call'; id: string; name: string; thoughtSignature?: string; itemId?: string; issuer?: Issuer };

/**
 * One event of a model stream in canonical form. Blocks are numbered by `index` in the order
 * they start; deltas name the block they belong to. Every stream ends with `message_stop`
 * (a clean end) or `error`.
 */
export type StreamEvent =
  | { type: 'message_start'; id: string; model: string; created?: number; usage?: Usage }
  | { type: 'block_start'; index: number; block: BlockStart }
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'tool_args_delta'; index: number; delta: string }
  | { type: 'reasoning_delta'; index: number; text: string }
  /**
   * An opaque signature for a reasoning block (or a Gemini thoughtSignature on any block). For an
   * OpenAI Responses reasoning block (issuer openai) it is the item's final `encrypted_content`,
   * which replaces the one given at block_start. Encoders ignore signatures of other issuers.
   */
  | { type: 'signature'; index: number; signature: string; issuer: Issuer }
  | { type: 'block_stop'; index: number }
  | { type: 'finish'; finishReason: FinishReason; stopSequence?: string | null }
  /** Usage so far: each event replaces the previous one (the figures are cumulative). */
  | { type: 'usage'; usage: Usage }
  | { type: 'message_stop' }
  | { type: 'error'; error: ErrorInfo };

export type StreamEventType = StreamEvent['type'];
