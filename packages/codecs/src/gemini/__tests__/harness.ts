/**
 * Test harness for gemini_generate_content: the shared stream driver (`src/__tests__/harness.ts`) bound to this
 * format's decoder and encoder, and gathers Gemini chunks the way `@google/genai` does.
 */
import { streamHarness } from '../../__tests__/harness.js';
import { createStreamDecoder } from '../decode-stream.js';
import { createStreamEncoder } from '../encode-stream.js';

export { bytes, sliceAt, type PipeOptions } from '../../__tests__/harness.js';

export const harness = streamHarness({ createStreamDecoder, createStreamEncoder });
export const { decodeChunks, decodeText, encodeEvents, reencodeChunks, reencodeText } = harness;

/** Gemini SSE text → the JSON chunks, checking Google's framing (`data:` only, CRLF CRLF). */
export function parseChunks(text: string): Array<Record<string, unknown>> {
  if (text.length === 0) return [];
  // A failed stream ends as Google's do: a bare JSON error body after the last event, no blank line after it.
  let error: Record<string, unknown> | undefined;
  if (!text.endsWith('\r\n\r\n')) {
    const cut = text.lastIndexOf('\r\n\r\n') + 4;
    const tail = text.slice(cut === 3 ? 0 : cut);
    if (!tail.startsWith('{') || !tail.endsWith('}\n') || tail.endsWith('\n\n'))
      throw new Error(`a Gemini stream ends with CRLF CRLF or a bare error body: ${tail.slice(0, 80)}`);
    error = JSON.parse(tail) as Record<string, unknown>;
    if (error['error'] === undefined) throw new Error('a bare JSON body after the events is an error body');
    text = text.slice(0, text.length - tail.length);
  }
  const events =
    text.length === 0
      ? []
      : text
          .slice(0, -4)
          .split('\r\n\r\n')
          .map((event) => {
            if (!event.startsWith('data: ') || event.includes('\n')) throw new Error(`not a single data line: ${event.slice(0, 80)}`);
            return JSON.parse(event.slice(6)) as Record<string, unknown>;
          });
  return error === undefined ? events : [...events, error];
}

export interface Assembled {
  text: string;
  thoughts: string;
  functionCalls: Array<{ id?: string; name: string; args: unknown; thoughtSignature?: string }>;
  signatures: string[];
  finishReason?: string;
  usageMetadata?: Record<string, unknown>;
  responseId?: string;
  modelVersion?: string;
  error?: Record<string, unknown>;
}

/** What a Gemini client (the @google/genai SDK) gathers from a stream's chunks. */
export function assemble(text: string): Assembled {
  const out: Assembled = { text: '', thoughts: '', functionCalls: [], signatures: [] };
  for (const chunk of parseChunks(text)) {
    if (chunk['error'] !== undefined) {
      out.error = chunk['error'] as Record<string, unknown>;
      continue;
    }
    if (typeof chunk['responseId'] === 'string') out.responseId = chunk['responseId'];
    if (typeof chunk['modelVersion'] === 'string') out.modelVersion = chunk['modelVersion'];
    if (chunk['usageMetadata'] !== undefined) out.usageMetadata = chunk['usageMetadata'] as Record<string, unknown>;
    const candidate = (chunk['candidates'] as Array<Record<string, unknown>> | undefined)?.[0];
    if (candidate === undefined) continue;
    if (typeof candidate['finishReason'] === 'string') out.finishReason = candidate['finishReason'];
    const parts = ((candidate['content'] as Record<string, unknown> | undefined)?.['parts'] as Array<Record<string, unknown>> | undefined) ?? [];
    for (const part of parts) {
      const sig = part['thoughtSignature'] as string | undefined;
      if (part['functionCall'] !== undefined) {
        const call = part['functionCall'] as { id?: string; name: string; args: unknown };
        out.functionCalls.push(sig === undefined ? { ...call } : { ...call, thoughtSignature: sig });
        continue;
      }
      if (sig !== undefined) out.signatures.push(sig);
      if (part['thought'] === true) out.thoughts += part['text'] as string;
      else if (typeof part['text'] === 'string') out.text += part['text'];
    }
  }
  return out;
}
