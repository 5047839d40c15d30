// An OpenAI client calling Claude through tollgate, in-process: no proxy, the app keeps its SDK.
//   ANTHROPIC_API_KEY=sk-ant-… npx tsx examples/in-process/main.ts
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { parse } from 'yaml';
import { createGateway, createVirtualKey, type PolicyFileInput, type RegistryFileInput } from '@tollgate/core';

const load = (file: string): unknown => parse(readFileSync(new URL(file, import.meta.url), 'utf8'));
const registry = load('../registry/anthropic.yaml') as RegistryFileInput; // models, deployments, prices
const policy = load('./policy.yaml') as PolicyFileInput; // who may call what, and what it may cost
// Tests point the registry at a local stand-in for the Anthropic API; unset, the real one is called.
if (process.env.ANTHROPIC_BASE_URL) registry.providers.anthropic!.base_url = process.env.ANTHROPIC_BASE_URL;

// A virtual key for alice: the key goes to her client, only its hash to the gateway.
const { key, hash } = await createVirtualKey();
const gateway = createGateway({
  registry,
  policy,
  identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
  usage: (record) => console.error(JSON.stringify(record)), // one usage record per call
}); // the Anthropic key is read from the environment (ANTHROPIC_API_KEY) when a call needs it

// An OpenAI client reaching a Claude deployment: translated, metered, priced and recorded.
const client = new OpenAI({ apiKey: key, fetch: gateway.fetch });
const answer = await client.chat.completions.create({
  model: 'claude-sonnet',
  messages: [{ role: 'user', content: 'Say hello to tollgate in five words.' }],
});
console.log(answer.choices[0]?.message.content);
await gateway.close(); // flushes the usage records
