import type { CacheControl } from './cache-control.js';

/** A function tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  /** OpenAI `strict` structured-output flag. */
  strict?: boolean;
  cacheControl?: CacheControl;
}

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  /** The model must call some tool (OpenAI `required`, Anthropic `any`, Gemini `ANY`). */
  | { type: 'required' }
  | { type: 'tool'; name: string };
