import { describe, expect, it } from 'vitest';
import { baseRegistry } from './__tests__/fixtures.js';
import { listModels } from './discovery.js';
import { loadRegistry } from './load.js';
import type { Registry } from './types.js';

function load(raw: unknown = baseRegistry()): Registry {
  const result = loadRegistry(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.registry;
}

const registry = load();
const everyone = () => true;

describe('listModels', () => {
  it("renders OpenAI's shape: the models an OpenAI SDK can reach, hidden and staged ones left out", () => {
    expect(listModels(registry, 'openai', everyone)).toEqual({
      object: 'list',
      data: [
        { id: 'claude-sonnet', object: 'model', created: 0, owned_by: 'anthropic' },
        { id: 'gpt-5', object: 'model', created: 0, owned_by: 'openai' },
      ],
    });
  });

  it("renders Anthropic's shape", () => {
    expect(listModels(registry, 'anthropic', everyone)).toEqual({
      data: [{ type: 'model', id: 'claude-sonnet', display_name: 'claude-sonnet', created_at: '1970-01-01T00:00:00Z' }],
      has_more: false,
      first_id: 'claude-sonnet',
      last_id: 'claude-sonnet',
    });
  });

  it("renders Gemini's shape with token limits", () => {
    expect(listModels(registry, 'gemini', everyone)).toEqual({
      models: [
        {
          name: 'models/gemini-flash',
          displayName: 'gemini-flash',
          inputTokenLimit: 1048576,
          outputTokenLimit: 65536,
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent'],
        },
      ],
    });
  });

  it('lists only what the caller may use', () => {
    const seen: string[] = [];
    const body = listModels(registry, 'openai', (id) => {
      seen.push(id);
      return id !== 'claude-sonnet';
    });
    expect(body.data.map((m) => m.id)).toEqual(['gpt-5']);
    expect(seen).not.toContain('claude-next');
    expect(seen).not.toContain('llama-local');
    const none = listModels(registry, 'anthropic', () => false);
    expect(none).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it('omits unknown token limits', () => {
    const raw = baseRegistry();
    delete raw.models['gemini-flash'].capabilities;
    expect(listModels(load(raw), 'gemini', everyone).models[0]).not.toHaveProperty('inputTokenLimit');
  });
});
