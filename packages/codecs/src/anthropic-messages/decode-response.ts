/** Anthropic Messages response body → canonical response. */
import type { DecodedResponse } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AssistantContentPart } from '../ir/content.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, asString, isObject, type JsonObject } from '../shared/guards.js';
import { decodeAssistantBlock, type DecodeContext } from './decode-content.js';
import { decodeErrorObject } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { FORMAT } from './schemas.js';
import { decodeUsage, USAGE_KEYS } from './usage.js';

const MESSAGE_KEYS = new Set(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage']);

export function decodeResponse(body: unknown): DecodedResponse {
  if (!isObject(body)) throw new GatewayError('upstream_error', 'The upstream returned a response body that is not a JSON object.');
  if (body['type'] === 'error') {
    const info = decodeErrorObject(body['error']);
    throw new GatewayError(info.code, info.message, { status: info.status });
  }
  const blocks = asArray(body['content']);
  if (blocks === undefined) throw new GatewayError('upstream_error', 'The upstream response has no content array.');
  const warnings: ConversionWarning[] = [];
  const ctx: DecodeContext = { strict: false, warnings };
  const content: AssistantContentPart[] = [];
  blocks.forEach((block, i) => {
    const part = decodeAssistantBlock(block, `content[${i}]`, ctx);
    if (part !== undefined) content.push(part);
  });

  const stopReason = asString(body['stop_reason']);
  const response: Response = {
    id: asString(body['id']) ?? '',
    model: asString(body['model']) ?? '',
    content,
    finishReason: decodeFinishReason(stopReason),
    stopSequence: asString(body['stop_sequence']) ?? null,
    usage: isObject(body['usage']) ? decodeUsage(body['usage']) : null,
  };

  // Fields with no IR home (container, stop_details, usage.service_tier, …) survive a same-format round trip.
  const fields: JsonObject = {};
  for (const key of Object.keys(body)) if (!MESSAGE_KEYS.has(key)) fields[key] = body[key];
  const usage = body['usage'];
  if (isObject(usage)) {
    const extra: JsonObject = {};
    for (const key of Object.keys(usage)) if (!USAGE_KEYS.has(key)) extra[key] = usage[key];
    if (Object.keys(extra).length > 0) fields['usage'] = extra;
  }
  if (Object.keys(fields).length > 0) response.vendor = { format: FORMAT, fields };
  return { response, warnings };
}

/** Server tool calls the server names by a sub-tool of the tool the request declares. */
const SERVER_TOOL: Readonly<Record<string, string>> = {
  bash_code_execution: 'code_execution',
  text_editor_code_execution: 'code_execution',
};

/**
 * Every tool call of a whole answer (`Codec.answerToolCalls`), by the name the request side
 * gives its tool: `tool_use` and `server_tool_use` by their `name` (the code execution tool's
 * `bash_code_execution` and `text_editor_code_execution` as `code_execution`), `mcp_tool_use`
 * as `mcp`, the name of the MCP connector's servers. A call without a name is null.
 */
export function answerToolCalls(body: unknown): Array<string | null> {
  const blocks = isObject(body) ? asArray(body['content']) : undefined;
  if (blocks === undefined) return [];
  const out: Array<string | null> = [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    const type = block['type'];
    if (type === 'mcp_tool_use') out.push('mcp');
    else if (type === 'tool_use' || type === 'server_tool_use') {
      const name = asString(block['name']);
      out.push(name === undefined || name === '' ? null : type === 'server_tool_use' ? (SERVER_TOOL[name] ?? name) : name);
    }
  }
  return out;
}
