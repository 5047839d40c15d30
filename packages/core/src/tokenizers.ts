/**
 * `@tollgate/core/tokenizers`: token counters for OpenAI's public encodings (gpt-tokenizer, an
 * optional peer dependency: `npm install gpt-tokenizer`), for models that declare a `tokenizer`
 * in the registry — their count_tokens requests are counted locally when no deployment can count
 * upstream:
 *
 *   import { openaiTokenizers } from '@tollgate/core/tokenizers';
 *   createGateway({ registry, identity, tokenizers: openaiTokenizers });
 *
 * Each encoding's tables are loaded on its first count.
 */
import type { TokenizerName } from './registry/index.js';
import type { TokenCounter } from './gateway/token-counters.js';

type Count = (text: string) => number;

/** One encoding, loaded on first use (the import is per encoding so a bundle splits them). */
function counter(encoding: TokenizerName, load: () => Promise<{ countTokens: Count }>): TokenCounter {
  let loaded: Promise<Count> | undefined;
  return {
    encoding,
    async count(text) {
      loaded ??= load().then(
        (m) => m.countTokens,
        (error: unknown) => {
          loaded = undefined;
          throw error;
        },
      );
      return (await loaded)(text);
    },
  };
}

export const o200kBase: TokenCounter = counter('o200k_base', () => import('gpt-tokenizer/encoding/o200k_base'));
export const o200kHarmony: TokenCounter = counter('o200k_harmony', () => import('gpt-tokenizer/encoding/o200k_harmony'));
export const cl100kBase: TokenCounter = counter('cl100k_base', () => import('gpt-tokenizer/encoding/cl100k_base'));
export const p50kBase: TokenCounter = counter('p50k_base', () => import('gpt-tokenizer/encoding/p50k_base'));
export const r50kBase: TokenCounter = counter('r50k_base', () => import('gpt-tokenizer/encoding/r50k_base'));

/** Every OpenAI encoding a registry model may declare. */
export const openaiTokenizers: readonly TokenCounter[] = [o200kBase, o200kHarmony, cl100kBase, p50kBase, r50kBase];

export type { TokenCounter };
