import { describe, expect, it } from 'vitest';
import { anthropicVertexCodec } from '../anthropic-vertex/index.js';
import { CLIENT_TOOL_PROMPT_TOKENS, costFields } from './cost-fields.js';
import { decodeRequest } from './decode-request.js';

const body = (extra: Record<string, unknown>) => ({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...extra });
const cost = (extra: Record<string, unknown>) => costFields(decodeRequest(body(extra)).request);

describe('Anthropic Messages cost-bearing fields', () => {
  it('refuses server tools, MCP servers, containers and premium speed; counts client tools’ fixed prompt', () => {
    const tools = [
      { type: 'web_search_20250305', name: 'web_search' },
      { type: 'bash_20250124', name: 'bash' },
      { type: 'text_editor_20250429', name: 'str_replace_based_edit_tool' },
      { name: 'f', input_schema: { type: 'object' } },
    ];
    const c = cost({ tools, mcp_servers: [{ type: 'url', url: 'https://x', name: 'x' }], container: 'c1', speed: 'fast', inference_geo: 'us' });
    expect(c.unbounded.map((f) => f.field)).toEqual(['tools.web_search_20250305', 'mcp_servers', 'container', 'speed', 'inference_geo']);
    expect(c.extraPromptTokens).toBe(2 * CLIENT_TOOL_PROMPT_TOKENS);
    expect(cost({ speed: 'standard', inference_geo: 'global' }).unbounded).toEqual([]);
  });

  it('applies to Vertex bodies too', () => {
    const { model: _model, ...vertex } = body({ mcp_servers: [{ type: 'url', url: 'https://x', name: 'x' }] });
    const decoded = anthropicVertexCodec.decodeRequest({ ...vertex, anthropic_version: 'vertex-2023-10-16' }, { model: 'claude' });
    expect(anthropicVertexCodec.costFields!(decoded.request).unbounded.map((f) => f.field)).toEqual(['mcp_servers']);
  });
});
