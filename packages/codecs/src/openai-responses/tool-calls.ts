/**
 * The output items of a Responses answer that call a tool, by the name tool allow lists match
 * the tool with (the request side names a built-in tool by its `type`; see the gateway's
 * `builtInTools`): a function or custom tool call by its `name`; `computer_call` as
 * `computer_use_preview` (or `computer`, when that is the tool the answer echoes),
 * `local_shell_call` as `local_shell`, `shell_call` as `shell`, `apply_patch_call` as
 * `apply_patch`, `mcp_call` and `mcp_approval_request` as `mcp`. Calls the server runs itself
 * (web and file search, code interpreter, image generation) were checked with the request and
 * are not listed; any other `…_call` item is a call the gateway cannot name (null).
 */
import { asString, isObject, type JsonObject } from '../shared/guards.js';

/** Items the upstream's own tools ran: results, not calls the client is asked to make. */
const SERVER_RUN: ReadonlySet<string> = new Set(['web_search_call', 'file_search_call', 'code_interpreter_call', 'image_generation_call']);

/** Built-in call items → the names the request may have declared the tool by, the usual one first. */
const BUILT_IN: Readonly<Record<string, readonly string[]>> = {
  computer_call: ['computer_use_preview', 'computer'],
  local_shell_call: ['local_shell'],
  shell_call: ['shell'],
  apply_patch_call: ['apply_patch'],
  mcp_call: ['mcp'],
  mcp_approval_request: ['mcp'],
};

/** Output items the stream decoder carries as tool calls of the IR. */
const DECODED: ReadonlySet<string> = new Set(['function_call']);

/**
 * The tool an output item calls: its name, null for a call the gateway cannot name, undefined
 * for an item that calls nothing the client runs. `echoed`: the tool types the answer echoes.
 */
export function itemToolCall(item: JsonObject, echoed: ReadonlySet<string> = new Set()): string | null | undefined {
  const type = asString(item.type);
  if (type === undefined || type === 'message' || type === 'reasoning' || SERVER_RUN.has(type)) return undefined;
  if (type === 'function_call' || type === 'custom_tool_call') {
    const name = asString(item.name);
    return name === undefined || name === '' ? null : name;
  }
  const names = BUILT_IN[type];
  if (names !== undefined) return names.find((n) => echoed.has(n)) ?? names[0]!;
  return type.endsWith('_call') ? null : undefined;
}

/**
 * A call the client is asked to run that the IR stream cannot carry (a custom or built-in tool
 * call): the stream decoder shows it as an unnamed tool call, which a tool guard withholds.
 */
export function isOpaqueClientCall(item: JsonObject): boolean {
  const type = asString(item.type);
  if (type === undefined || DECODED.has(type) || type === 'mcp_call' || type === 'mcp_approval_request') return false;
  return itemToolCall(item) !== undefined;
}

/** Every tool call of a whole Responses answer (`Codec.answerToolCalls`), in output order. */
export function answerToolCalls(body: unknown): Array<string | null> {
  if (!isObject(body) || !Array.isArray(body.output)) return [];
  const echoed = new Set<string>();
  if (Array.isArray(body.tools)) for (const t of body.tools) if (isObject(t) && typeof t.type === 'string') echoed.add(t.type);
  const out: Array<string | null> = [];
  for (const item of body.output) {
    if (!isObject(item)) continue;
    const call = itemToolCall(item, echoed);
    if (call !== undefined) out.push(call);
  }
  return out;
}
