import type { CacheControl } from './ir/cache-control.js';
import type { ContentPart, TextPart } from './ir/content.js';
import type { Message } from './ir/message.js';
import type { Request } from './ir/request.js';
import type { ToolDefinition } from './ir/tool.js';

export interface CacheShapingOptions {
  /** The TTL of the breakpoints the gateway adds. Default: the vendor default (5 minutes). */
  ttl?: '5m' | '1h';
}

/** Anthropic accepts at most four cache breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

type Marked = { cacheControl?: CacheControl } | { type: 'refusal' };

function count(request: Request): number {
  let n = 0;
  const see = (x: Marked) => {
    if ('cacheControl' in x && x.cacheControl !== undefined) n++;
  };
  request.tools.forEach(see);
  request.system.forEach(see);
  for (const m of request.messages) (m.content as ContentPart[]).forEach(see);
  return n;
}

/**
 * Prompt-cache shaping for Anthropic-family upstreams (opt-in): add cache breakpoints after the
 * last tool definition, the system prompt and the latest message, so repeated prefixes are read
 * from cache. Never removes or moves the client's own breakpoints and never exceeds four in
 * total; places that already carry one are left alone. Returns a new request (the input is not
 * changed) and how many breakpoints were added.
 */
export function shapePromptCache(request: Request, options: CacheShapingOptions = {}): { request: Request; added: number } {
  const control: CacheControl = options.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  let budget = MAX_CACHE_BREAKPOINTS - count(request);
  let added = 0;
  const take = (): boolean => {
    if (budget <= 0) return false;
    budget--;
    added++;
    return true;
  };

  let tools: ToolDefinition[] = request.tools;
  const lastTool = tools[tools.length - 1];
  if (lastTool !== undefined && lastTool.cacheControl === undefined && take()) {
    tools = [...tools.slice(0, -1), { ...lastTool, cacheControl: control }];
  }

  let system: TextPart[] = request.system;
  const lastSystem = system[system.length - 1];
  if (lastSystem !== undefined && lastSystem.cacheControl === undefined && take()) {
    system = [...system.slice(0, -1), { ...lastSystem, cacheControl: control }];
  }

  let messages: Message[] = request.messages;
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last !== undefined) {
    const parts = last.content as ContentPart[];
    const tail = parts[parts.length - 1];
    // Reasoning blocks cannot carry a breakpoint; refusals have no wire form that can.
    if (tail !== undefined && tail.type !== 'reasoning' && tail.type !== 'refusal' && tail.cacheControl === undefined && take()) {
      const content = [...parts.slice(0, -1), { ...tail, cacheControl: control }];
      messages = [...messages.slice(0, lastIndex), { ...last, content } as Message];
    }
  }
  if (added === 0) return { request, added };
  return { request: { ...request, tools, system, messages }, added };
}
