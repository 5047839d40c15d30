import { utf8Bytes, type ContentPart, type MediaSource, type Request as IRRequest } from '@tollgate/codecs/base';

export interface SizingOptions {
  /** Tokens charged for an input the gateway cannot size: an image. Default 8,000. */
  imageTokens?: number;
  /** Tokens charged for a file or document (PDF, audio). Default 200,000. */
  fileTokens?: number;
  /** Fixed overhead per message (role markers, separators). Default 16. */
  perMessageTokens?: number;
  /** Fixed overhead per tool definition, on top of its JSON. Default 32. */
  perToolTokens?: number;
  /** Fixed overhead per request (system scaffolding). Default 64. */
  perRequestTokens?: number;
  /**
   * Added once to a request that declares tools: the system prompt a vendor puts in front of
   * tool definitions, billed as input and never sent by the client (Anthropic's is about 350
   * tokens; Amazon Nova's about as many). Default 1,024.
   */
  toolUseTokens?: number;
}

/** UTF-8 byte length of a string without encoding it. */
export const utf8Length: (text: string) => number = utf8Bytes;

/**
 * A true upper bound on the prompt's tokens: every byte-level tokenizer spends at least one
 * byte of UTF-8 per token, so text counts at its byte length; fixed overheads are added per
 * message and per tool; inputs the gateway cannot size (images, files, remote URLs) count at
 * a configured per-item maximum.
 *
 * With `rawBytes` (the body as the client sent it) the bound also covers what the upstream
 * reads that the canonical request does not hold (fields a codec keeps only for its own
 * format, parts it drops when translating, forwarded unchanged on an identity route): every
 * byte of the body but the inline media data counts as a token, and media at the per-item
 * maximum. The result is the larger of the two bounds.
 */
export function promptTokenBound(request: IRRequest, options: SizingOptions = {}, rawBytes?: number): number {
  const image = options.imageTokens ?? 8_000;
  const file = options.fileTokens ?? 200_000;
  const perMessage = options.perMessageTokens ?? 16;
  const perRequest = options.perRequestTokens ?? 64;
  let total = perRequest;
  /** Per-item allowances, and the bytes of inline media data the body holds for them. */
  let media = 0;
  let mediaBytes = 0;
  const inline = (source: MediaSource): number =>
    source.kind === 'base64' ? source.data.length : source.kind === 'url' && source.url.startsWith('data:') ? source.url.length : 0;
  const part = (p: ContentPart): number => {
    switch (p.type) {
      case 'text':
      case 'refusal':
        return utf8Length(p.text);
      case 'reasoning':
        return utf8Length(p.text) + utf8Length(p.signature ?? '') + utf8Length(p.redactedData ?? '') + utf8Length(p.encryptedContent ?? '');
      case 'image':
        media += image;
        mediaBytes += inline(p.source);
        return image;
      case 'file':
        media += file;
        mediaBytes += inline(p.source);
        return file;
      case 'tool_call':
        return utf8Length(p.name) + utf8Length(p.arguments) + utf8Length(p.id) + 8;
      case 'tool_result': {
        let n = utf8Length(p.toolCallId) + 8;
        for (const c of p.content) n += part(c);
        return n;
      }
    }
  };
  for (const s of request.system) total += utf8Length(s.text) + perMessage;
  for (const m of request.messages) {
    total += perMessage;
    for (const p of m.content) total += part(p);
  }
  for (const t of request.tools) {
    total += (options.perToolTokens ?? 32) + utf8Length(t.name) + utf8Length(t.description ?? '') + utf8Length(JSON.stringify(t.parameters));
  }
  const toolUse = request.tools.length > 0 ? (options.toolUseTokens ?? 1_024) : 0;
  total += toolUse;
  if (rawBytes === undefined) return total;
  // Inline media data in the body is at least as long as the canonical data (JSON escapes only lengthen it).
  return Math.max(total, rawBytes - mediaBytes + media + perRequest + toolUse);
}

/** Whether the prompt holds an image or a file: what the prompt bound sizes at a per-item allowance, not exactly. */
export function holdsMedia(request: IRRequest): boolean {
  const media = (p: ContentPart): boolean => p.type === 'image' || p.type === 'file' || (p.type === 'tool_result' && p.content.some(media));
  return request.messages.some((m) => m.content.some(media));
}
