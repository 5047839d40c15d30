/**
 * Local token counts with a model's public tokenizer, for count_tokens requests no deployment can
 * count upstream. Counters are given to the gateway (`options.tokenizers`), so a bundle that
 * counts nothing locally holds no tokenizer tables; `@tollgate/core/tokenizers` has OpenAI's.
 */
import type { Request as IRRequest } from '@tollgate/codecs/base';
import type { Registry, TokenizerName } from '../registry/index.js';
import { GatewayConfigError } from './config-error.js';

/** Counts the tokens of a text with one public encoding. */
export interface TokenCounter {
  readonly encoding: TokenizerName;
  count(text: string): number | Promise<number>;
}

export type TokenCounterTable = Partial<Record<TokenizerName, TokenCounter>>;

function isCounter(value: unknown): value is TokenCounter {
  return (
    typeof value === 'object' && value !== null && typeof (value as TokenCounter).encoding === 'string' && typeof (value as TokenCounter).count === 'function'
  );
}

export function tokenCounterTableFrom(list: unknown): TokenCounterTable {
  if (list === undefined) return {};
  const table: TokenCounterTable = {};
  const issues: Array<{ path: string; message: string }> = [];
  if (!Array.isArray(list)) issues.push({ path: 'tokenizers', message: 'a list of token counters, e.g. openaiTokenizers' });
  else
    list.forEach((c: unknown, i) =>
      isCounter(c)
        ? (table[c.encoding] = c)
        : issues.push({ path: `tokenizers[${i}]`, message: 'not a token counter (import openaiTokenizers from @tollgate/core/tokenizers)' }),
    );
  if (issues.length > 0) throw new GatewayConfigError('options', issues);
  return table;
}

/** Refuse to start when a model declares a tokenizer the gateway was not given. */
export function assertTokenizersCover(registry: Registry, counters: TokenCounterTable): void {
  const issues: Array<{ path: string; message: string }> = [];
  for (const model of Object.values(registry.models)) {
    if (model.tokenizer !== null && counters[model.tokenizer] === undefined) {
      issues.push({
        path: 'tokenizers',
        message: `no token counter for ${model.tokenizer}, declared by model ${model.id}: add openaiTokenizers from '@tollgate/core/tokenizers'`,
      });
    }
  }
  if (issues.length > 0) throw new GatewayConfigError('options', issues);
}

/** Per message and for the reply that follows, as OpenAI's chat format frames them. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

/**
 * The input tokens of a request by the tokenizer: every text it holds (system, messages,
 * reasoning, tool calls and results, tool definitions as JSON) plus OpenAI's chat framing (3 per
 * message, 3 for the reply). Null when the request holds media (images, files): a tokenizer
 * cannot count those, and the gateway never makes a number up.
 */
export async function countLocally(request: IRRequest, counter: TokenCounter): Promise<number | null> {
  const texts: string[] = [];
  let messages = 0;
  if (request.system.length > 0) {
    messages++;
    for (const part of request.system) texts.push(part.text);
  }
  for (const message of request.messages) {
    messages++;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'refusal':
          texts.push(part.text);
          break;
        case 'reasoning':
          texts.push(part.text);
          break;
        case 'tool_call':
          texts.push(part.name, part.arguments);
          break;
        case 'tool_result':
          for (const c of part.content) {
            if (c.type !== 'text') return null;
            texts.push(c.text);
          }
          break;
        case 'image':
        case 'file':
          return null;
      }
    }
  }
  for (const tool of request.tools) texts.push(JSON.stringify({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters }));
  let total = messages * PER_MESSAGE + REPLY_PRIMING;
  for (const text of texts) if (text.length > 0) total += await counter.count(text);
  return total;
}
