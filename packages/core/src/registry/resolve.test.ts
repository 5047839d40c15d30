import { describe, expect, it } from 'vitest';
import { baseRegistry } from './__tests__/fixtures.js';
import { loadRegistry } from './load.js';
import { candidates, isRegistry, resolveEntry, resolveModel } from './resolve.js';
import type { Registry } from './types.js';

function load(raw: unknown = baseRegistry()): Registry {
  const result = loadRegistry(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.registry;
}

const registry = load();
const summary = (list: ReturnType<typeof candidates>) => list.map((c) => `${c.deployment.id}:${c.plan}`);

describe('resolveEntry', () => {
  it.each([
    ['POST', '/v1/chat/completions', 'openai_chat', false, null],
    ['post', '/v1/messages', 'anthropic_messages', false, null],
    ['POST', '/v1/responses?stream=true', 'openai_responses', false, null],
    ['POST', '/v1beta/models/gemini-2.5-flash:generateContent', 'gemini_generate_content', false, 'gemini-2.5-flash'],
    ['POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', 'gemini_generate_content', true, 'gemini-2.5-flash'],
    ['POST', '/v1beta/models/tunedModels%2Fmine:generateContent', 'gemini_generate_content', false, 'tunedModels/mine'],
  ])('%s %s', (method, path, format, stream, model) => {
    expect(resolveEntry(registry, method, path)).toMatchObject({ format, stream, model, route: { format } });
  });

  it.each([
    ['GET', '/v1/chat/completions'],
    ['POST', '/v1/chat/completions/'],
    ['POST', '/v1/embeddings'],
    ['POST', '/v1beta/models/:generateContent'],
    ['POST', '/v1beta/models/x:countTokens'],
    ['POST', '/v1beta/models/%E0%A4%A:generateContent'],
  ])('%s %s → null', (method, path) => {
    expect(resolveEntry(registry, method, path)).toBeNull();
  });

  it('reports the family of the entry format', () => {
    expect(resolveEntry(registry, 'POST', '/v1/responses')?.family).toBe('responses');
  });
});

describe('resolveModel', () => {
  it('resolves ids and aliases to the canonical model', () => {
    expect(resolveModel(registry, 'claude-sonnet')?.id).toBe('claude-sonnet');
    expect(resolveModel(registry, 'claude-sonnet-latest')?.id).toBe('claude-sonnet');
    expect(resolveModel(registry, 'gemini-2.5-flash')?.id).toBe('gemini-flash');
  });

  it('serves hidden models but not staged or unknown ones', () => {
    expect(resolveModel(registry, 'llama-local')?.visibility).toBe('hidden');
    expect(resolveModel(registry, 'claude-next')).toBeNull();
    expect(resolveModel(registry, 'gpt-6')).toBeNull();
    expect(resolveModel(registry, '__proto__')).toBeNull();
  });

  it('refuses objects that loadRegistry did not make', () => {
    expect(() => resolveModel({ ...registry }, 'gpt-5')).toThrow(/not a registry made by loadRegistry/);
    expect(isRegistry(registry)).toBe(true);
    expect(isRegistry({ ...registry })).toBe(false);
    expect(isRegistry(null)).toBe(false);
  });
});

describe('candidates', () => {
  it('orders by priority, then identity < raw < translate, then weight', () => {
    // Anthropic client: identity (weight 100) beats raw to Vertex (weight 300) at priority 1.
    expect(summary(candidates(registry, 'claude-sonnet', 'anthropic_messages'))).toEqual([
      'sonnet@anthropic:identity',
      'sonnet@vertex:raw',
      'sonnet@anthropic-eu:identity',
    ]);
    // OpenAI client: everything translates; weight decides at priority 1.
    expect(summary(candidates(registry, 'claude-sonnet', 'openai_chat'))).toEqual([
      'sonnet@vertex:translate',
      'sonnet@anthropic:translate',
      'sonnet@anthropic-eu:translate',
    ]);
  });

  it('crosses families only where a converter is declared, and never uses disabled deployments', () => {
    expect(summary(candidates(registry, 'claude-sonnet', 'openai_responses'))).toEqual(['sonnet@anthropic:translate', 'sonnet@anthropic-eu:translate']);
  });

  it('keeps file order at equal priority, plan and weight', () => {
    const raw = baseRegistry();
    raw.models['claude-sonnet'].deployments[0].weight = 100;
    raw.models['claude-sonnet'].deployments.unshift({ ...raw.models['claude-sonnet'].deployments[1], id: 'sonnet@anthropic-2' });
    expect(summary(candidates(load(raw), 'claude-sonnet', 'openai_chat'))).toEqual([
      'sonnet@anthropic-2:translate',
      'sonnet@vertex:translate',
      'sonnet@anthropic:translate',
      'sonnet@anthropic-eu:translate',
    ]);
  });

  it('substitutes the upstream model into the operation paths, with the credential and URLs', () => {
    const [vertex] = candidates(registry, 'claude-sonnet', 'openai_chat');
    expect(vertex).toMatchObject({
      model: 'claude-sonnet',
      entryFormat: 'openai_chat',
      upstreamFormat: 'anthropic_vertex',
      path: '/claude-sonnet-4-5@20250929:rawPredict',
      streamPath: '/claude-sonnet-4-5@20250929:streamRawPredict',
      url: 'https://us-east5-aiplatform.googleapis.com/v1/projects/acme/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
      credential: { name: 'vertex', kind: 'bearer', secret: 'VERTEX_ACCESS_TOKEN' },
      provider: { id: 'vertex' },
      operation: { format: 'anthropic_vertex', family: 'chat' },
    });
    const [gemini] = candidates(registry, 'gemini-2.5-flash', 'gemini_generate_content');
    expect(gemini).toMatchObject({
      plan: 'identity',
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      streamPath: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      streamUrl: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      credential: { name: 'google', kind: 'query', param: 'key', secret: 'GEMINI_API_KEY' },
    });
    const [openai] = candidates(registry, 'gpt-5', 'openai_chat');
    expect(openai).toMatchObject({ path: '/v1/chat/completions', streamPath: '/v1/chat/completions', url: 'https://api.openai.com/v1/chat/completions' });
    const [anthropic] = candidates(registry, 'claude-sonnet', 'anthropic_messages');
    expect(anthropic?.provider.headers).toEqual({ 'anthropic-version': '2023-06-01' });
    expect(anthropic?.credential).toEqual({ name: 'anthropic', kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' });
  });

  it('percent-encodes what may not appear in a path, and nothing else', () => {
    const raw = baseRegistry();
    raw.operations[5].path = '/models/{model}/chat';
    const [local] = candidates(load(raw), 'llama-local', 'openai_chat');
    expect(local?.path).toBe('/models/meta-llama/Llama%203.3/chat');
    expect(local?.credential).toBeNull();
  });

  it('accepts an alias or a model object; empty for staged, unknown or unadvertised', () => {
    const model = resolveModel(registry, 'gpt-5')!;
    expect(candidates(registry, model, 'openai_responses')).toEqual(candidates(registry, 'gpt-5', 'openai_responses'));
    expect(summary(candidates(registry, 'claude-sonnet-latest', 'anthropic_messages'))[0]).toBe('sonnet@anthropic:identity');
    expect(candidates(registry, 'claude-next', 'anthropic_messages')).toEqual([]);
    expect(candidates(registry, 'nope', 'openai_chat')).toEqual([]);
    expect(candidates(registry, 'gpt-5', 'anthropic_messages')).toEqual([]);
  });

  it('returns frozen lists', () => {
    expect(Object.isFrozen(candidates(registry, 'gpt-5', 'openai_chat'))).toBe(true);
  });
});
