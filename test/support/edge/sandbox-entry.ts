/**
 * Bundled (platform neutral) and run by strip-node-globals.mjs in a Node process whose Node
 * globals were deleted and whose module evaluation follows Workers' global-scope rules (no
 * timer, random value or fetch). The handler is created at module scope, as a Worker would.
 */
import { createEdgeHandler, type EdgeHandler } from '@tollgate/adapters-edge';
import type { UsageRecord } from '@tollgate/core';
import { OPENAI_SECRET, cappedPolicy, chatRequest, edgeRegistry, fakeUpstream, streamedText } from '../../../packages/adapters-edge/src/__tests__/fixture.ts';

interface SandboxConfig {
  key: string;
  hash: string;
}

const config = (globalThis as { TOLLGATE_SANDBOX?: SandboxConfig }).TOLLGATE_SANDBOX!;
const identity = { virtual_keys: [{ hash: config.hash, principal: { user: 'alice', tier: 'normal' } }] };
const upstream = fakeUpstream();
const records: UsageRecord[] = [];

const handler: EdgeHandler = createEdgeHandler({
  registry: edgeRegistry(),
  identity,
  policy: cappedPolicy(),
  allowPerIsolateCaps: true,
  secrets: { OPENAI_API_KEY: OPENAI_SECRET },
  fetch: upstream.fetch,
  usage: (record) => void records.push(record),
  notify: () => {},
});

let refusal = '';
try {
  createEdgeHandler({ registry: edgeRegistry(), identity, policy: cappedPolicy(), notify: () => {}, secrets: {} });
} catch (error) {
  refusal = error instanceof Error ? error.message : String(error);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run() {
  const streamed = await streamedText(await handler(chatRequest(config.key, { stream: true, stream_options: { include_usage: true } })));
  const json = (await (await handler(chatRequest(config.key))).json()) as { choices: Array<{ message: { content: string } }> };
  const denied = await handler(chatRequest(`tg_${'x'.repeat(40)}`));
  const deniedBody = (await denied.json()) as unknown;
  for (let i = 0; i < 100 && records.length < 3; i++) await sleep(10);
  await handler.close({ drainMs: 1000 });
  return {
    streamedText: streamed.text,
    streamedUsage: streamed.usage,
    jsonText: json.choices[0]?.message.content ?? null,
    deniedStatus: denied.status,
    deniedBody,
    records: records.map((r) => ({ status: r.status, http_status: r.http_status, usage: r.usage, cost: r.cost_micros?.total ?? null })),
    upstreamAuth: upstream.seen.map((s) => s.headers.get('authorization')),
    refusal,
  };
}
