import type { Request as IRRequest, ContentPart } from '@tollgate/codecs/base';

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
}

/** UTF-8 byte length of a string without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * A true upper bound on the prompt's tokens: every byte-level tokenizer spends at least one
 * byte of UTF-8 per token, so text counts at its byte length; fixed overheads are added per
 * message and per tool; inputs the gateway cannot size (images, files, remote URLs) count at
 * a configured per-item maximum.
 */
export function promptTokenBound(request: IRRequest, options: SizingOptions = {}): number {
  const image = options.imageTokens ?? 8_000;
  const file = options.fileTokens ?? 200_000;
  const perMessage = options.perMessageTokens ?? 16;
  let total = options.perRequestTokens ?? 64;
  const part = (p: ContentPart): number => {
    switch (p.type) {
      case 'text':
      case 'refusal':
        return utf8Length(p.text);
      case 'reasoning':
        return utf8Length(p.text) + utf8Length(p.signature ?? '') + utf8Length(p.redactedData ?? '') + utf8Length(p.encryptedContent ?? '');
      case 'image':
        return image;
      case 'file':
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
  return total;
}
