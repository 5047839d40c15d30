import { createVirtualKey, type RegistryFileInput } from '@tollgate/core';

export const PRICING_SONNET = {
  unit: 'usd_per_mtok',
  input: '3',
  output: '15',
  cache_read: '0.30',
  cache_write: '3.75',
  cache_write_1h: '6',
} as const;

export const PRICING_MINI = { unit: 'usd_per_mtok', input: '0.15', output: '0.60', cache_read: '0.075' } as const;

export const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-upstream-secret-0001',
  OPENAI_API_KEY: 'sk-openai-upstream-secret-0002',
};

/**
 * A registry whose providers point at scenario prefixes of one mock upstream:
 * `${upstream}/<scenario>` per provider.
 */
export function testRegistry(upstream: string, scenarios: { anthropic?: string; anthropicBackup?: string; openai?: string } = {}) {
  const a = scenarios.anthropic ?? 'anthropic';
  const b = scenarios.anthropicBackup ?? 'anthropic-backup';
  const o = scenarios.openai ?? 'openai';
  return {
    wire_formats: {
      openai_chat: { family: 'chat' },
      anthropic_messages: { family: 'chat' },
    },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/messages', format: 'anthropic_messages' },
    ],
    converters: [
      { from: 'openai_chat', to: 'anthropic_messages' },
      { from: 'anthropic_messages', to: 'openai_chat' },
    ],
    credentials: {
      anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
      openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
    },
    providers: {
      anthropic: { base_url: `${upstream}/${a}`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
      'anthropic-backup': { base_url: `${upstream}/${b}`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
      openai: { base_url: `${upstream}/${o}`, credential: 'openai' },
    },
    operations: [
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
      { provider: 'anthropic-backup', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
      { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
    ],
    models: {
      'claude-sonnet': {
        brand: 'anthropic',
        entry_formats: ['openai_chat', 'anthropic_messages'],
        aliases: ['claude-sonnet-latest'],
        tags: ['claude', 'frontier'],
        capabilities: { tools: true, reasoning: true, context_window: 200000, max_output_tokens: 64000 },
        deployments: [
          {
            id: 'sonnet@anthropic',
            provider: 'anthropic',
            format: 'anthropic_messages',
            upstream_model: 'claude-sonnet-4-5',
            priority: 1,
            weight: 100,
            pricing: PRICING_SONNET,
          },
          {
            id: 'sonnet@backup',
            provider: 'anthropic-backup',
            format: 'anthropic_messages',
            upstream_model: 'claude-sonnet-4-5',
            priority: 2,
            weight: 100,
            pricing: PRICING_SONNET,
          },
        ],
      },
      'claude-opus': {
        brand: 'anthropic',
        entry_formats: ['openai_chat', 'anthropic_messages'],
        tags: ['claude', 'frontier'],
        capabilities: { tools: true, max_output_tokens: 32000 },
        deployments: [
          {
            id: 'opus@anthropic',
            provider: 'anthropic',
            format: 'anthropic_messages',
            upstream_model: 'claude-opus-4-1',
            priority: 1,
            weight: 100,
            pricing: { unit: 'usd_per_mtok', input: '15', output: '75' },
          },
        ],
      },
      'gpt-mini': {
        brand: 'openai',
        entry_formats: ['openai_chat', 'anthropic_messages'],
        tags: ['openai'],
        capabilities: { tools: true, max_output_tokens: 16000 },
        deployments: [
          { id: 'mini@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'gpt-4o-mini', priority: 1, weight: 100, pricing: PRICING_MINI },
        ],
      },
    },
  } satisfies RegistryFileInput;
}

export interface TestUser {
  user: string;
  tier?: string;
  bu?: string;
  leaders?: string[];
}

export async function keysFor(...users: TestUser[]) {
  const keys: Record<string, string> = {};
  const virtual_keys: Array<{ hash: string; principal: TestUser }> = [];
  for (const u of users) {
    const { key, hash } = await createVirtualKey();
    keys[u.user] = key;
    virtual_keys.push({ hash, principal: { ...u } });
  }
  return { keys, identity: { virtual_keys } };
}
