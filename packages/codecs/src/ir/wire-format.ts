/** The wire formats tollgate speaks. A codec exists for each one. */
export type WireFormat = 'openai_chat' | 'openai_responses' | 'anthropic_messages' | 'anthropic_vertex' | 'gemini_generate_content' | 'bedrock_converse';

export const WIRE_FORMATS: readonly WireFormat[] = [
  'openai_chat',
  'openai_responses',
  'anthropic_messages',
  'anthropic_vertex',
  'gemini_generate_content',
  'bedrock_converse',
];

export function isWireFormat(value: unknown): value is WireFormat {
  return typeof value === 'string' && (WIRE_FORMATS as readonly string[]).includes(value);
}

/**
 * The vendor that issued an opaque value (a thinking signature, encrypted reasoning, a Gemini
 * thought signature). Such values are only valid when sent back to the same vendor.
 */
export type Issuer = 'anthropic' | 'openai' | 'google';

/**
 * Which vendor issues the opaque state carried by a format's responses. Bedrock Converse carries
 * Claude's thinking signatures and redacted thinking (the only opaque reasoning values it has),
 * which Anthropic documents as valid across the Claude API, Bedrock and Vertex AI.
 */
export const ISSUER_OF_FORMAT: Record<WireFormat, Issuer> = {
  openai_chat: 'openai',
  openai_responses: 'openai',
  anthropic_messages: 'anthropic',
  anthropic_vertex: 'anthropic',
  gemini_generate_content: 'google',
  bedrock_converse: 'anthropic',
};
