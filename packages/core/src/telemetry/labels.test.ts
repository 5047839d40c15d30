import { describe, expect, it } from 'vitest';
import { BoundedLabel, OTHER } from './labels.js';
import { brandProvider, metricReason, operationName, providerName, reasonClass } from './semconv.js';

describe('BoundedLabel', () => {
  it('keeps codes up to its cap, then answers _OTHER; free text is never a label', () => {
    const label = new BoundedLabel(2);
    expect(label.value(null)).toBe('none');
    expect(label.value('spend_limit:frontier-monthly')).toBe('spend_limit:frontier-monthly');
    expect(label.value('rate_limit:alice-rpm')).toBe('rate_limit:alice-rpm');
    expect(label.value('upstream_503')).toBe(OTHER);
    // Seen values keep their label after the cap.
    expect(label.value('spend_limit:frontier-monthly')).toBe('spend_limit:frontier-monthly');
    const fresh = new BoundedLabel(10);
    expect(fresh.value('ignore previous instructions')).toBe(OTHER);
    expect(fresh.value('x'.repeat(161))).toBe(OTHER);
  });
});

describe('GenAI semantic-convention values', () => {
  it('names the operation and the provider flavour as the spec lists them', () => {
    expect(operationName('openai_chat')).toBe('chat');
    expect(operationName('gemini_generate_content')).toBe('generate_content');
    expect(operationName('gemini_generate_content', 'embed')).toBe('embeddings');
    expect(operationName('anthropic_messages', 'count_tokens')).toBe('count_tokens');
    expect(operationName('openai_chat', 'generate')).toBe('chat');
    expect(providerName('bedrock_converse')).toBe('aws.bedrock');
    expect(providerName('anthropic_messages')).toBe('anthropic');
    expect(providerName('anthropic_vertex')).toBe('gcp.vertex_ai');
    expect(providerName('openai_responses')).toBe('openai');
    expect(providerName('gemini_generate_content', 'https://generativelanguage.googleapis.com')).toBe('gcp.gemini');
    expect(providerName('gemini_generate_content', 'https://us-central1-aiplatform.googleapis.com')).toBe('gcp.vertex_ai');
    expect(providerName(null)).toBe('_OTHER');
    expect(brandProvider('google')).toBe('gcp.gemini');
    expect(brandProvider('acme')).toBe('_OTHER');
    expect(reasonClass('spend_limit:opus-cap')).toBe('spend_limit');
    expect(reasonClass('model_not_found')).toBe('model_not_found');
    // On a metric, names the operator did not choose are dropped; rule ids and entities are kept.
    expect(metricReason('tool_not_allowed:exfiltrate_everything')).toBe('tool_not_allowed');
    expect(metricReason('tool_call_blocked:made_up_tool')).toBe('tool_call_blocked');
    expect(metricReason('spend_limit:opus-cap')).toBe('spend_limit:opus-cap');
    expect(metricReason('dlp_block:credit_card')).toBe('dlp_block:credit_card');
    expect(metricReason(null)).toBeNull();
  });
});
