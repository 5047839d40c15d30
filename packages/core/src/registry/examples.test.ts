import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { listModels } from './discovery.js';
import { loadRegistry } from './load.js';
import { candidates, countCandidates, resolveModel } from './resolve.js';
import { RegistrySchema } from './schema.js';
import type { Registry } from './types.js';

const dir = fileURLToPath(new URL('../../../../examples/registry/', import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function load(file: string): Registry {
  const result = loadRegistry(parse(readFileSync(dir + file, 'utf8')));
  if (!result.ok) throw new Error(`${file}:\n${result.errors.map((e) => `${e.path}: ${e.message}`).join('\n')}`);
  return result.registry;
}

describe('example registries', () => {
  it('are the ones the docs promise', () => {
    expect(files).toEqual([
      'anthropic.yaml',
      'azure-openai.yaml',
      'bedrock.yaml',
      'counting-embeddings.yaml',
      'gemini.yaml',
      'openai.yaml',
      'vertex.yaml',
      'vllm-pool.yaml',
    ]);
  });

  it.each(files)('%s validates, and every served model can be reached in each format it advertises', (file) => {
    const registry = load(file);
    expect(RegistrySchema.safeParse(parse(readFileSync(dir + file, 'utf8'))).success).toBe(true);
    for (const model of Object.values(registry.models)) {
      if (model.staged) continue;
      for (const format of model.entryFormats) expect(candidates(registry, model.id, format).length).toBeGreaterThan(0);
    }
  });

  it('anthropic.yaml: Claude direct, identity for Anthropic clients, translation for OpenAI ones', () => {
    const registry = load('anthropic.yaml');
    expect(candidates(registry, 'claude-sonnet-latest', 'anthropic_messages').map((c) => c.plan)).toEqual(['identity']);
    expect(candidates(registry, 'claude-sonnet', 'openai_chat')[0]).toMatchObject({ plan: 'translate', url: 'https://api.anthropic.com/v1/messages' });
    expect(resolveModel(registry, 'claude-opus-4-1')).toBeNull(); // staged
  });

  it('gemini.yaml: the API key in x-goog-api-key, streaming over SSE', () => {
    const [c] = candidates(load('gemini.yaml'), 'gemini-2.5-pro', 'gemini_generate_content');
    expect(c).toMatchObject({
      credential: { kind: 'header', header: 'x-goog-api-key', secret: 'GEMINI_API_KEY' },
      streamUrl: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    });
  });

  it('openai.yaml: hidden models are served but not listed', () => {
    const registry = load('openai.yaml');
    expect(resolveModel(registry, 'gpt-4o-mini')).not.toBeNull();
    expect(listModels(registry, 'openai', () => true).data.map((m) => m.id)).not.toContain('gpt-4o-mini');
  });

  it('bedrock.yaml: SigV4 for us-east-1, identity for AWS SDK clients, the Converse stream path', () => {
    const registry = load('bedrock.yaml');
    const [c] = candidates(registry, 'claude-sonnet', 'bedrock_converse');
    expect(c).toMatchObject({
      plan: 'identity',
      credential: {
        kind: 'aws_sigv4',
        region: 'us-east-1',
        service: 'bedrock',
        accessKeyId: 'AWS_ACCESS_KEY_ID',
        secretAccessKey: 'AWS_SECRET_ACCESS_KEY',
        sessionToken: 'AWS_SESSION_TOKEN',
      },
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse',
      streamUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse-stream',
    });
    expect(candidates(registry, 'nova-micro', 'anthropic_messages').map((x) => x.plan)).toEqual(['translate']);
    expect(resolveModel(registry, 'us.amazon.nova-micro-v1:0')?.id).toBe('nova-micro');
  });

  it('counting-embeddings.yaml: Claude counts upstream, gpt-4o locally, embedding models from both SDKs', () => {
    const registry = load('counting-embeddings.yaml');
    expect(countCandidates(registry, 'claude-sonnet', 'anthropic_messages').map((c) => c.url)).toEqual(['https://api.anthropic.com/v1/messages/count_tokens']);
    expect(countCandidates(registry, 'gpt-4o', 'anthropic_messages')).toEqual([]);
    expect(registry.models['gpt-4o']!.tokenizer).toBe('o200k_base');
    expect(candidates(registry, 'gemini-embedding', 'openai_chat')[0]).toMatchObject({
      plan: 'translate',
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents',
    });
  });

  it('vertex.yaml: one service account for Gemini and Claude on Vertex', () => {
    const registry = load('vertex.yaml');
    const credential = { kind: 'google_service_account', secret: 'VERTEX_SA_KEY', scopes: ['https://www.googleapis.com/auth/cloud-platform'] };
    expect(candidates(registry, 'gemini-2.5-pro', 'openai_chat')[0]).toMatchObject({
      credential,
      url: 'https://us-central1-aiplatform.googleapis.com/v1/projects/acme-prod/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent',
    });
    expect(candidates(registry, 'claude-sonnet', 'anthropic_messages')[0]).toMatchObject({ plan: 'raw', credential });
  });

  it('azure-openai.yaml: api-key header, api-version query, the deployment name in the path', () => {
    const [c] = candidates(load('azure-openai.yaml'), 'gpt-4o', 'openai_chat');
    expect(c).toMatchObject({
      credential: { kind: 'header', header: 'api-key', secret: 'AZURE_OPENAI_API_KEY' },
      url: 'https://acme-prod.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21',
    });
  });

  it('vllm-pool.yaml: the pool first, the vendor as overflow', () => {
    const registry = load('vllm-pool.yaml');
    const list = candidates(registry, 'gpt-oss-120b', 'openai_chat');
    expect(list.map((c) => [c.deployment.id, c.deployment.priority])).toEqual([
      ['gpt-oss-120b@vllm-a', 1],
      ['gpt-oss-120b@vllm-b', 1],
      ['gpt-oss-120b@groq', 2],
    ]);
    expect(list[0]).toMatchObject({ url: 'http://127.0.0.1:8000/v1/chat/completions', credential: { kind: 'bearer', secret: 'VLLM_API_KEY' } });
    expect(candidates(registry, 'gpt-oss-120b', 'anthropic_messages').every((c) => c.plan === 'translate')).toBe(true);
  });
});
