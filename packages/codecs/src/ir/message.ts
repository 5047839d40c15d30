import type { AssistantContentPart, ToolResultPart, UserContentPart } from './content.js';

export interface UserMessage {
  role: 'user';
  content: UserContentPart[];
  /** OpenAI's optional participant `name`. */
  name?: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentPart[];
  name?: string;
}

/** Tool results. Formats that put results in a user turn (Anthropic, Gemini) split them out. */
export interface ToolMessage {
  role: 'tool';
  content: ToolResultPart[];
}

export type Message = UserMessage | AssistantMessage | ToolMessage;
