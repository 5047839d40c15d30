import type { UsageRecord } from '@tollgate/core';

/** A complete usage record for sink tests; `overrides` replace top-level fields. */
export function usageRecord(overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    schema: 1,
    request_id: `req_${crypto.randomUUID()}`,
    ts: new Date().toISOString(),
    principal: { kind: 'user', id: 'alice', issuer: null, tier: 'normal', team: null, bu: 'payments', application: null, platform: null, workflow: null },
    entry_format: 'openai_chat',
    upstream_format: 'anthropic_messages',
    requested_model: 'claude-sonnet-latest',
    model: 'claude-sonnet',
    substituted_from: null,
    deployment: 'sonnet@anthropic',
    provider: 'anthropic',
    upstream_model: 'claude-sonnet-4-5',
    stream: true,
    usage: { input: 120, output: 57, cache_read: 400, cache_write: 30, cache_write_1h: 0, reasoning: 0, measured: true },
    cost_micros: { input: 360, output: 855, cache_read: 120, cache_write: 113, cache_write_1h: 0, total: 1448 },
    reserved_micros: 5000,
    status: 'ok',
    reason: null,
    http_status: 200,
    would_block: [],
    ttfb_ms: 12,
    duration_ms: 340,
    attempts: 1,
    unclassified_fields: 0,
    tools_declared: ['get_weather'],
    tools_invoked: ['get_weather'],
    dlp: {},
    dlp_response: {},
    policy_prompts: [],
    registry_revision: 'sha256:0000',
    policy_revision: null,
    ...overrides,
  };
}
