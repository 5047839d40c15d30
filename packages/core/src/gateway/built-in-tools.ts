/**
 * The tools a request carries outside its function list — built-in (server, system) tools, MCP
 * servers, web search — by the name tool allow lists match them with:
 *
 * - an entry of a `tools` list (Responses, Anthropic, OpenAI Chat, Bedrock `toolConfig` and the
 *   Anthropic tools of `additionalModelRequestFields`): its `name`; else the `name` under its
 *   `type` (OpenAI Chat `{ type: 'custom', custom: { name } }`); else its `type` (`web_search`,
 *   `web_search_20250305`, `mcp`); a Bedrock `{ systemTool: { name } }` by that name;
 * - a Gemini tool: each of its keys in snake_case (`googleSearch` and `google_search` are both
 *   `google_search`; `code_execution`, `url_context`, …);
 * - each entry of Anthropic `mcp_servers` (the MCP connector): `mcp`, as a Responses `mcp` tool;
 * - OpenAI Chat `web_search_options`: `web_search`, as the Responses tool.
 *
 * A tool no rule names is listed with a null name: while an allow list applies it is refused.
 */
import type { Request as IRRequest } from '@tollgate/codecs/base';

export interface BuiltInTool {
  /** The name allow lists match, or null when the gateway cannot name the tool. */
  name: string | null;
  /** The request field that declares it, for the caller's error. */
  param: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `googleSearch` → `google_search`; snake_case stays as it is. */
const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function listed(tool: unknown, gemini: boolean): Array<string | null> {
  if (!isObject(tool)) return [null];
  if (gemini) {
    const keys = Object.keys(tool).filter((k) => k !== 'functionDeclarations' && k !== 'function_declarations');
    return keys.length === 0 ? [null] : keys.map(snakeCase);
  }
  const o = isObject(tool['systemTool']) ? tool['systemTool'] : tool;
  if (typeof o['name'] === 'string' && o['name'] !== '') return [o['name']];
  const type = o['type'];
  if (typeof type !== 'string' || type === '') return [null];
  const inner = o[type];
  if (isObject(inner)) return [typeof inner['name'] === 'string' && inner['name'] !== '' ? inner['name'] : null];
  return [type];
}

/** Every tool the request declares beyond `ir.tools`, each with the name allow lists match (see above). */
export function builtInTools(ir: IRRequest): BuiltInTool[] {
  const vendor = ir.vendor;
  if (vendor === undefined) return [];
  const fields = vendor.fields;
  const gemini = vendor.format === 'gemini_generate_content';
  const out: BuiltInTool[] = [];
  const list = (value: unknown, param: string) => {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) return void out.push({ name: null, param });
    for (const tool of value) for (const name of listed(tool, gemini)) out.push({ name, param });
  };
  list(fields['tools'], 'tools');
  if (isObject(fields['toolConfig'])) list(fields['toolConfig']['tools'], 'toolConfig.tools');
  if (isObject(fields['additionalModelRequestFields'])) list(fields['additionalModelRequestFields']['tools'], 'additionalModelRequestFields.tools');
  const mcp = fields['mcp_servers'];
  if (Array.isArray(mcp)) for (const _ of mcp) out.push({ name: 'mcp', param: 'mcp_servers' });
  else if (mcp !== undefined && mcp !== null) out.push({ name: null, param: 'mcp_servers' });
  const search = fields['web_search_options'];
  if (search !== undefined && search !== null) out.push({ name: 'web_search', param: 'web_search_options' });
  return out;
}
