/**
 * Tool allow lists and the `tools` capability on the tools a request declares outside its
 * function list: Gemini built-in tools (camelCase and snake_case keys), Anthropic `mcp_servers`
 * (the MCP connector), OpenAI Chat `web_search_options` and custom tools — each named as
 * docs/dlp-tools-prompts.md says, refused when a list does not allow it, and relayed when one
 * does. In-process through `gateway.fetch`, against loopback echo upstreams of every format,
 * so what reached the upstream is checked along with what the caller sees.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type PolicyFileInput, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, echoModel, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { startMockUpstream } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A gateway over echo upstreams of every format; `registry` may change the echo registry (capabilities, say). */
async function gatewayOver(policy: unknown, registry: (r: RegistryFileInput) => RegistryFileInput = (r) => r) {
  const seen: Seen[] = [];
  const upstream = await startMockUpstream(echoScenarios({ echo: {} }, seen));
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: registry(echoRegistry(upstream.url, ['echo'])),
    policy: policy as PolicyFileInput,
    identity: ids.identity,
    secrets: ECHO_SECRETS,
    usage: (r) => void records.push(r),
  });
  cleanups.push(async () => {
    await gateway.close();
    await upstream.close();
  });
  const key = ids.keys.alice!;
  const post = (path: string, body: Record<string, unknown>) =>
    gateway.fetch(`http://gw${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'x-api-key': key,
        'x-goog-api-key': key,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
  return { seen, records, post };
}

const allowing = (...allow: string[]) => ({ tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow }] } });
const user = [{ role: 'user', content: 'hi' }];

const gemini = (tools: unknown[]) =>
  [`/v1beta/models/${echoModel('gemini_generate_content')}:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools }] as const;
const anthropic = (extra: Record<string, unknown>) =>
  ['/v1/messages', { model: echoModel('anthropic_messages'), max_tokens: 10, messages: user, ...extra }] as const;
const chat = (extra: Record<string, unknown>) => ['/v1/chat/completions', { model: echoModel('openai_chat'), messages: user, ...extra }] as const;

const MCP = [{ type: 'url', url: 'https://mcp.example/sse', name: 'payments-admin' }];
const CUSTOM = [{ type: 'custom', custom: { name: 'shell', description: 'run anything' } }];

describe('tool allow lists on tools outside the function list', () => {
  it.each([
    ['Gemini googleSearch', gemini([{ googleSearch: {} }]), 'google_search'],
    ['Gemini google_search (snake_case)', gemini([{ google_search: {} }]), 'google_search'],
    ['Gemini codeExecution', gemini([{ codeExecution: {} }]), 'code_execution'],
    ['Gemini url_context', gemini([{ url_context: {} }]), 'url_context'],
    ['Anthropic mcp_servers', anthropic({ mcp_servers: MCP }), 'mcp'],
    ['OpenAI Chat web_search_options', chat({ web_search_options: {} }), 'web_search'],
    ['OpenAI Chat custom tool', chat({ tools: CUSTOM }), 'shell'],
  ])('refuses %s outside the list: 403, nothing sent', async (_name, [path, body], tool) => {
    const { seen, records, post } = await gatewayOver(allowing('get_*'));
    const res = await post(path, body);
    expect(res.status).toBe(403);
    expect(JSON.stringify(await res.json())).toContain(`The tool '${tool}' is not allowed`);
    expect(seen).toEqual([]);
    expect(records[0]).toMatchObject({ reason: `tool_not_allowed:${tool}`, http_status: 403 });
  });

  it.each([
    ['Gemini tools, either spelling', gemini([{ googleSearch: {} }, { code_execution: {} }]), 'tools', [{ googleSearch: {} }, { code_execution: {} }]],
    ['Anthropic mcp_servers', anthropic({ mcp_servers: MCP }), 'mcp_servers', MCP],
    ['OpenAI Chat web_search_options', chat({ web_search_options: { search_context_size: 'low' } }), 'web_search_options', { search_context_size: 'low' }],
    ['OpenAI Chat custom tool', chat({ tools: CUSTOM }), 'tools', CUSTOM],
  ])('relays %s a list allows, as sent', async (_name, [path, body], field, sent) => {
    const { seen, post } = await gatewayOver(allowing('get_*', 'google_search', 'code_execution', 'mcp', 'web_search', 'shell'));
    const res = await post(path, body);
    expect(res.status).toBe(200);
    expect(seen[0]!.body[field]).toEqual(sent);
  });

  it('refuses a tool the gateway cannot name while a list applies, and relays it when none does', async () => {
    const body = chat({ tools: [{ type: 'custom', custom: { description: 'no name' } }] });
    const listed = await gatewayOver(allowing('*'));
    const res = await listed.post(...body);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { param: 'tools' } });
    expect(listed.seen).toEqual([]);
    expect(listed.records[0]).toMatchObject({ reason: 'tool_not_allowed:unnamed' });
    const open = await gatewayOver({});
    expect((await open.post(...body)).status).toBe(200);
  });

  it('reports them in shadow mode without refusing', async () => {
    const { seen, records, post } = await gatewayOver({ enforcement: 'shadow', ...allowing('get_*') });
    expect((await post(...anthropic({ mcp_servers: MCP }))).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(records[0]!.would_block).toContain('tool_not_allowed:mcp');
  });
});

describe('capabilities.tools: false', () => {
  const noTools = (r: RegistryFileInput) => {
    for (const m of Object.values(r.models ?? {})) (m as { capabilities: { tools: boolean } }).capabilities.tools = false;
    return r;
  };
  it.each([
    ['Gemini built-in tools', gemini([{ google_search: {} }])],
    ['Anthropic mcp_servers', anthropic({ mcp_servers: MCP })],
    ['OpenAI Chat web_search_options', chat({ web_search_options: {} })],
    ['OpenAI Chat custom tools', chat({ tools: CUSTOM })],
  ])('refuses %s', async (_name, [path, body]) => {
    const { seen, records, post } = await gatewayOver({}, noTools);
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(seen).toEqual([]);
    expect(records[0]).toMatchObject({ reason: 'capability:tools' });
  });
});
