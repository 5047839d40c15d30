import { describe, expect, it } from 'vitest';
import type { Request as IRRequest } from '@tollgate/codecs/base';
import { asksForReasoning, ContextFit, declaresTools, listPrice, PriceCeiling } from './route-constraints.js';
import { builtInTools } from './built-in-tools.js';
import { parsePricing } from '../pricing/index.js';
import { promptTokenFloor, wordCount } from './token-floor.js';
import type { Model } from '../registry/index.js';

const request = (over: Partial<IRRequest> = {}): IRRequest => ({ system: [], messages: [], tools: [], stream: false, ...over });
const model = (context_window?: number): Model => ({
  id: 'm',
  brand: 'b',
  kind: 'generate',
  tokenizer: null,
  entryFormats: ['openai_chat'],
  aliases: [],
  tags: ['all'],
  visibility: 'listed',
  capabilities: context_window === undefined ? {} : { context_window },
  deployments: [],
  staged: false,
});

describe('the prompt token floor', () => {
  it('counts runs between ASCII whitespace only', () => {
    expect(wordCount('')).toBe(0);
    expect(wordCount('  one\ttwo\n\nthree  ')).toBe(3);
    // A no-break space or an ideographic space may not split a token: never a gap.
    expect(wordCount('a\u00a0b\u3000c')).toBe(1);
    expect(wordCount('{"city":"Paris"}')).toBe(1);
  });

  it('counts system, message text and tool results; not reasoning, tool-call arguments or media', () => {
    const ir = request({
      system: [{ type: 'text', text: 'be brief' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is the weather' },
            { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'many words of earlier thinking here' },
            { type: 'tool_call', id: 'c1', name: 'get_weather', arguments: '{"city": "Paris France"}' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'sunny and warm' }] }] },
      ],
    });
    expect(promptTokenFloor(ir)).toBe(2 + 4 + 3);
  });

  it('refuses only past the window, and counts again only when the prompt changed', () => {
    const fit = new ContextFit();
    const ir = request({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a b c d e' }] }] });
    expect(fit.refusal(model(), ir, 'openai_chat')).toBeNull();
    expect(fit.refusal(model(5), ir, 'openai_chat')).toBeNull();
    const refused = fit.refusal(model(4), ir, 'anthropic_messages');
    expect(refused?.reason).toBe('context_length_exceeded');
    expect(refused?.error.code).toBe('context_length_exceeded');
    expect(refused?.error.message).toBe('prompt is too long: at least 5 tokens > 4 maximum');
    // The same prompt with another max_tokens is not counted again.
    expect(fit.floor({ ...ir, maxTokens: 9 })).toBe(5);
  });
});

describe('what a request asks of a model', () => {
  it('declares tools: function tools or vendor built-in tools', () => {
    expect(declaresTools(request())).toBe(false);
    expect(declaresTools(request({ tools: [{ name: 'f', parameters: {} }] } as Partial<IRRequest>))).toBe(true);
    expect(declaresTools(request({ vendor: { format: 'openai_responses', fields: { tools: [{ type: 'web_search' }] } } }))).toBe(true);
    expect(
      declaresTools(request({ vendor: { format: 'bedrock_converse', fields: { toolConfig: { tools: [{ systemTool: { name: 'nova_grounding' } }] } } } })),
    ).toBe(true);
    expect(
      declaresTools(
        request({
          vendor: { format: 'bedrock_converse', fields: { additionalModelRequestFields: { tools: [{ type: 'computer_20250124', name: 'computer' }] } } },
        }),
      ),
    ).toBe(true);
    expect(declaresTools(request({ vendor: { format: 'bedrock_converse', fields: { additionalModelRequestFields: { anthropic_beta: ['x'] } } } }))).toBe(false);
  });

  it('names the tools a request declares outside its function list', () => {
    const names = (format: NonNullable<IRRequest['vendor']>['format'], fields: Record<string, unknown>) =>
      builtInTools(request({ vendor: { format, fields } })).map((t) => [t.name, t.param]);
    expect(names('gemini_generate_content', { tools: [{ googleSearch: {}, codeExecution: {} }, { url_context: {} }] })).toEqual([
      ['google_search', 'tools'],
      ['code_execution', 'tools'],
      ['url_context', 'tools'],
    ]);
    expect(
      names('anthropic_messages', {
        mcp_servers: [{ type: 'url', url: 'https://x', name: 'a' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      }),
    ).toEqual([
      ['web_search', 'tools'],
      ['mcp', 'mcp_servers'],
    ]);
    expect(
      names('openai_chat', { web_search_options: {}, tools: [{ type: 'custom', custom: { name: 'shell' } }, { type: 'custom', custom: {} }, {}] }),
    ).toEqual([
      ['shell', 'tools'],
      [null, 'tools'],
      [null, 'tools'],
      ['web_search', 'web_search_options'],
    ]);
    expect(names('openai_responses', { tools: [{ type: 'web_search' }, { type: 'mcp', server_label: 'x' }] })).toEqual([
      ['web_search', 'tools'],
      ['mcp', 'tools'],
    ]);
    expect(declaresTools(request({ vendor: { format: 'anthropic_messages', fields: { mcp_servers: [{ name: 'a' }] } } }))).toBe(true);
    expect(declaresTools(request({ vendor: { format: 'openai_chat', fields: { web_search_options: {} } } }))).toBe(true);
  });

  it('asks for reasoning unless it turns it off', () => {
    expect(asksForReasoning(request())).toBe(false);
    expect(asksForReasoning(request({ reasoning: { effort: 'high' } }))).toBe(true);
    expect(asksForReasoning(request({ reasoning: { enabled: true, budgetTokens: 1024 } }))).toBe(true);
    expect(asksForReasoning(request({ reasoning: { includeThoughts: true } }))).toBe(true);
    expect(asksForReasoning(request({ reasoning: { summary: 'auto' } }))).toBe(true);
    expect(asksForReasoning(request({ reasoning: { enabled: false } }))).toBe(false);
    expect(asksForReasoning(request({ reasoning: { effort: 'none', enabled: false } }))).toBe(false);
    expect(asksForReasoning(request({ reasoning: { includeThoughts: false } }))).toBe(false);
    // A level the codec does not know travels as the vendor's own field.
    expect(asksForReasoning(request({ vendor: { format: 'openai_chat', fields: { reasoning_effort: 'extreme' } } }))).toBe(true);
  });
});

describe('no_promote: list prices of a request, exact', () => {
  const at = (id: string, pricing: Parameters<typeof parsePricing>[0]) => {
    const parsed = parsePricing(pricing);
    if (parsed === undefined) throw new Error('bad pricing');
    return { deployment: { id, pricing: parsed } };
  };
  const base = at('base', { unit: 'usd_per_mtok', input: '3', output: '15' });
  // Cheaper output, dearer input: dearer or not depends on the request.
  const inputHeavy = at('input-heavy', { unit: 'usd_per_mtok', input: '4', output: '10' });
  // A millionth of a dollar more per million input tokens: exact decimals (and rounding up) tell them apart.
  const hair = at('hair', { unit: 'usd_per_mtok', input: '3.000001', output: '15' });
  const tiered = at('tiered', { unit: 'usd_per_mtok', input: '3', output: '15', threshold_tokens: 1000, long: { input: '6', output: '22.5' } });

  it('prices the prompt bound at the input rate and the output bound at the output rate, in micro-USD', () => {
    expect(listPrice(base, { promptTokens: 1000, outputTokens: 100 })).toBe(3000 + 1500);
    expect(listPrice(tiered, { promptTokens: 1001, outputTokens: 100 })).toBe(6006 + 2250);
  });

  it('keeps what costs no more than the first candidate, compared exactly for this request', () => {
    const chatty = new PriceCeiling(base, { promptTokens: 100, outputTokens: 4000 });
    expect(chatty.keep([base, inputHeavy, hair, tiered]).map((c) => c.deployment.id)).toEqual(['base', 'input-heavy', 'tiered']);
    const long = new PriceCeiling(base, { promptTokens: 100_000, outputTokens: 10 });
    expect(long.keep([base, inputHeavy, hair, tiered]).map((c) => c.deployment.id)).toEqual(['base']);
    expect(long.micros).toBe(300_150);
  });
});
