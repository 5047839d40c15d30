import { describe, expect, it } from 'vitest';
import { CLIENT_TOOL_PROMPT_TOKENS } from '../anthropic-messages/cost-fields.js';
import { openaiChatCodec } from '../openai-chat/index.js';
import { costFields } from './cost-fields.js';
import { decodeRequest } from './decode-request.js';
import { encodeRequest } from './encode-request.js';

const body = (extra: Record<string, unknown>) => ({ messages: [{ role: 'user', content: [{ text: 'hi' }] }], ...extra });
const cost = (extra: Record<string, unknown>) => costFields(decodeRequest(body(extra), { model: 'm' }).request);
const fields = (extra: Record<string, unknown>) => cost(extra).unbounded.map((f) => f.field);

describe('Bedrock Converse cost-bearing fields', () => {
  it('a plain request, and the fields that change nothing, add nothing', () => {
    const c = cost({
      inferenceConfig: { maxTokens: 10 },
      serviceTier: { type: 'flex' },
      performanceConfig: { latency: 'standard' },
      additionalModelRequestFields: { top_k: 5, thinking: { type: 'enabled', budget_tokens: 1024 }, anthropic_beta: ['interleaved-thinking-2025-05-14'] },
      requestMetadata: { a: 'b' },
    });
    expect(c).toEqual({ outputMultiplier: 1, extraOutputTokens: 0, extraPromptTokens: 0, unsizedInput: [], unbounded: [] });
  });

  it('refuses the premium tier, latency-optimized inference, guardrails and system tools; a managed prompt is unsized', () => {
    const tools = [
      { toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } },
      { systemTool: { name: 'nova_grounding' } },
      { systemTool: { name: 'nova_grounding' } },
    ];
    expect(
      fields({
        serviceTier: { type: 'priority' },
        performanceConfig: { latency: 'optimized' },
        guardrailConfig: { guardrailIdentifier: 'g', guardrailVersion: '1' },
        toolConfig: { tools },
      }),
    ).toEqual(['serviceTier', 'performanceConfig.latency', 'guardrailConfig', 'toolConfig.tools.systemTool.nova_grounding']);
    expect(cost({ promptVariables: { topic: { text: 'x' } } }).unsizedInput.map((f) => f.field)).toEqual(['promptVariables']);
  });

  it('reads the model’s own fields: Anthropic client tools add their prompt, server tools, the 1M context and unknown keys are unbounded', () => {
    const c = cost({
      additionalModelRequestFields: {
        tools: [
          { type: 'computer_20250124', name: 'computer', display_width_px: 1024, display_height_px: 768 },
          { type: 'web_search_20250305', name: 'web_search' },
        ],
        anthropic_beta: ['context-1m-2025-08-07'],
        mystery: true,
      },
    });
    expect(c.extraPromptTokens).toBe(CLIENT_TOOL_PROMPT_TOKENS);
    expect(c.unbounded.map((f) => f.field)).toEqual([
      'additionalModelRequestFields.tools.web_search_20250305',
      'additionalModelRequestFields.anthropic_beta',
      'additionalModelRequestFields.mystery',
    ]);
  });

  it('a system tool is kept for Bedrock, after the tool specs, and dropped with a warning for any other format', () => {
    const tools = [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }, { systemTool: { name: 'nova_grounding' } }];
    const decoded = decodeRequest(body({ toolConfig: { tools, toolChoice: { auto: {} } } }), { model: 'm' });
    expect(decoded.warnings).toEqual([]);
    expect(decoded.request.tools.map((t) => t.name)).toEqual(['f']);
    expect(encodeRequest(decoded.request).body['toolConfig']).toEqual({ tools, toolChoice: { auto: {} } });
    const onlySystem = decodeRequest(body({ toolConfig: { tools: [tools[1]] } }), { model: 'm' });
    expect(encodeRequest(onlySystem.request).body['toolConfig']).toEqual({ tools: [tools[1]] });
    const chat = openaiChatCodec.encodeRequest(decoded.request, { model: 'gpt' });
    expect(chat.warnings.some((w) => w.code === 'dropped_field' && w.path === 'toolConfig')).toBe(true);
  });
});
