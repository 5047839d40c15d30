import { describe, expect, it } from 'vitest';
import { openaiResponsesCodec as codec } from './index.js';

/** Every documented top-level field of a Responses request body (POST /v1/responses). */
const DOCUMENTED_FIELDS = [
  'background',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
];

const SAMPLE: Record<string, unknown> = {
  background: false,
  conversation: { id: 'conv_1' },
  include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
  input: [{ role: 'user', content: 'hi' }],
  instructions: 'Be brief.',
  max_output_tokens: 256,
  max_tool_calls: 3,
  metadata: { team: 'payments' },
  model: 'gpt-5',
  parallel_tool_calls: false,
  previous_response_id: 'resp_prev',
  prompt: { id: 'pmpt_1', version: '3', variables: { city: 'Paris' } },
  prompt_cache_key: 'user-42',
  prompt_cache_retention: '24h',
  reasoning: { effort: 'medium', summary: 'auto' },
  safety_identifier: 'hashed-user',
  service_tier: 'priority',
  store: false,
  stream: true,
  stream_options: { include_obfuscation: false },
  temperature: 0.2,
  text: { format: { type: 'json_object' }, verbosity: 'low' },
  tool_choice: { type: 'function', name: 'get_weather' },
  tools: [
    { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: true },
    { type: 'web_search' },
  ],
  top_logprobs: 2,
  top_p: 0.9,
  truncation: 'auto',
  user: 'alice',
};

describe('openai_responses field coverage', () => {
  it('knows exactly the documented fields', () => {
    expect([...codec.knownRequestFields].sort()).toEqual([...DOCUMENTED_FIELDS].sort());
  });

  it.each(DOCUMENTED_FIELDS)('%s is classified', (field) => {
    const { unclassified, warnings } = codec.decodeRequest({ model: 'm', input: [], [field]: SAMPLE[field] });
    expect(unclassified).toEqual([]);
    expect(warnings.filter((w) => w.code === 'unclassified_field')).toEqual([]);
  });

  it('a body using every documented field decodes with nothing unclassified and re-encodes unchanged', () => {
    const decoded = codec.decodeRequest(SAMPLE);
    expect(decoded.unclassified).toEqual([]);
    expect(decoded.warnings).toEqual([]);
    expect(codec.encodeRequest(decoded.request).body).toEqual(SAMPLE);
  });
});
