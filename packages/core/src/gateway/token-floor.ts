import type { ContentPart, Request as IRRequest } from '@tollgate/codecs/base';

/** ASCII whitespace only: a character some tokenizer might not split on is never counted as a gap. */
const isGap = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/** Words of `text`: runs of characters between ASCII whitespace. */
export function wordCount(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const gap = isGap(text.charCodeAt(i));
    if (!gap && !inWord) words++;
    inWord = !gap;
  }
  return words;
}

function partWords(p: ContentPart, count: (text: string) => number): number {
  switch (p.type) {
    case 'text':
    case 'refusal':
      return count(p.text);
    case 'tool_result': {
      let n = 0;
      for (const c of p.content) n += partWords(c, count);
      return n;
    }
    // Not counted: earlier turns' reasoning (vendors drop it from the context), tool-call
    // arguments (a vendor may re-serialize them), media and tool definitions (rendered in
    // vendor-specific ways). A floor only needs to be certain, not tight.
    default:
      return 0;
  }
}

/**
 * A lower bound on the tokens the prompt's text takes upstream: one token per word. Every
 * tokenizer these vendors use splits text at whitespace before merging (byte-level BPE with
 * pre-tokenization, SentencePiece splitting by whitespace), so no token holds two words. The
 * opposite of `promptTokenBound` (a true upper bound): a prompt whose floor is over a model's
 * context window cannot fit it, whatever the tokenizer.
 */
export function promptTokenFloor(ir: IRRequest): number {
  return sum(ir, wordCount);
}

/** The length of the text `promptTokenFloor` counts: never below its floor, and O(parts) to take. */
export function floorTextLength(ir: IRRequest): number {
  return sum(ir, (text) => text.length);
}

function sum(ir: IRRequest, count: (text: string) => number): number {
  let n = 0;
  for (const s of ir.system) n += count(s.text);
  for (const m of ir.messages) for (const p of m.content) n += partWords(p, count);
  return n;
}
