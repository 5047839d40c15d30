import { describe, expect, it } from 'vitest';
import { costFields } from './cost-fields.js';
import { decodeRequest } from './decode-request.js';

const cost = (extra: Record<string, unknown>) => costFields(decodeRequest({ model: 'm', input: 'hi', ...extra }).request);

describe('OpenAI Responses cost-bearing fields', () => {
  it('names each built-in tool type once, and lets client-run tools through', () => {
    const tools = [
      { type: 'web_search_preview' },
      { type: 'web_search_preview' },
      { type: 'code_interpreter', container: { type: 'auto' } },
      { type: 'function', name: 'f', parameters: {} },
      { type: 'custom', name: 'c' },
    ];
    expect(cost({ tools, max_tool_calls: 2 }).unbounded.map((f) => f.field)).toEqual(['tools.web_search_preview', 'tools.code_interpreter']);
    expect(cost({ tools: [{ type: 'function', name: 'f', parameters: {} }] }).unbounded).toEqual([]);
  });

  it('reports stored input and background runs', () => {
    const stored = cost({
      previous_response_id: 'resp_1',
      prompt: { id: 'pmpt_1' },
      input: [
        { type: 'item_reference', id: 'msg_1' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(stored.unsizedInput.map((f) => f.field)).toEqual(['previous_response_id', 'prompt', 'input.item_reference']);
    expect(cost({ background: true }).unbounded.map((f) => f.field)).toEqual(['background']);
    expect(cost({ store: true, background: false }).unbounded).toEqual([]);
  });
});
