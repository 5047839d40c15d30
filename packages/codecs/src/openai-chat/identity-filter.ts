import type { SseMessage } from '../sse/parse.js';
import { isObject, parseJson } from '../shared/guards.js';

/**
 * The identity plan's one rewrite: the gateway always asks an OpenAI upstream for
 * `include_usage` (it meters usage). When the client did not ask, the usage-only chunk is
 * dropped and `usage` is removed from a chunk that still carries choices. Every other message
 * is returned as the same object, so its bytes pass unchanged.
 */
export function identityFilter(message: SseMessage, options: { includeUsage: boolean }): SseMessage | null {
  if (options.includeUsage) return message;
  // Cheap test first: most chunks never mention usage.
  if (!message.data.includes('"usage"')) return message;
  const parsed = parseJson(message.data);
  if (!parsed.ok || !isObject(parsed.value)) return message;
  const chunk = parsed.value;
  if (!isObject(chunk.usage)) return message;
  if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return null;
  const { usage: _usage, ...rest } = chunk;
  const out: SseMessage = { data: JSON.stringify(rest) };
  if (message.event !== undefined) out.event = message.event;
  return out;
}
