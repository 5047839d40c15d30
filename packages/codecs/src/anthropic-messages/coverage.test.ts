import { describe, expect, it } from 'vitest';
import { anthropicMessagesCodec as codec } from './index.js';

/**
 * Every documented top-level field of a Messages API request body (POST /v1/messages), GA and
 * beta. A field missing from the codec's classification fails this test.
 */
const DOCUMENTED_FIELDS = [
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_k',
  'top_p',
  'tools',
  'tool_choice',
  'thinking',
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
  'inference_geo',
  'output_config',
  'output_format',
  'cache_control',
  'speed',
];

const SAMPLE: Record<string, unknown> = {
  model: 'claude-sonnet-4-5',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], // string content comes back as blocks
  max_tokens: 10,
  system: 'be brief',
  metadata: { user_id: 'u' },
  stop_sequences: ['x'],
  stream: true,
  temperature: 0.5,
  top_k: 3,
  top_p: 0.9,
  tools: [{ name: 'f', input_schema: { type: 'object' } }],
  tool_choice: { type: 'auto' },
  thinking: { type: 'enabled', budget_tokens: 1024 },
  service_tier: 'auto',
  container: 'container_1',
  mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'ex' }],
  context_management: { edits: [] },
  inference_geo: 'us',
  output_config: { effort: 'low' },
  output_format: { type: 'json_schema', schema: { type: 'object' } },
  cache_control: { type: 'ephemeral' },
  speed: 'fast',
};

describe('anthropic_messages field coverage', () => {
  it.each(DOCUMENTED_FIELDS)('%s is classified', (field) => {
    expect(codec.knownRequestFields).toContain(field);
    const { unclassified } = codec.decodeRequest({ model: 'm', messages: [], max_tokens: 1, [field]: SAMPLE[field] });
    expect(unclassified).toEqual([]);
  });

  it('a body using every documented field decodes with nothing unclassified and re-encodes unchanged', () => {
    const decoded = codec.decodeRequest(SAMPLE);
    expect(decoded.unclassified).toEqual([]);
    expect(codec.encodeRequest(decoded.request).body).toEqual(SAMPLE);
  });
});
