/**
 * The edge handler with an Amazon Bedrock upstream: the call is SigV4-signed with Web Crypto
 * (checked against the AWS SDK's own signer), a ConverseStream is relayed to a Bedrock client as
 * AWS event-stream frames (and translated for an OpenAI client), and a Bedrock client's stream
 * carries the right content type.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RegistryFileInput, UsageRecord } from '@tollgate/core';
import { recordedStream } from '../../codecs/src/bedrock-converse/__tests__/smithy.js';
import { AWS_KEYS, checkSigV4 } from '../../../test/support/aws.js';
import { aliceIdentity } from './__tests__/fixture.js';
import { createEdgeHandler, type EdgeHandler } from './index.js';

const open: EdgeHandler[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close({ drainMs: 100 })));
});

const STREAM = recordedStream('bedrock-converse/stream-tool-use.eventstream');

function registry(): RegistryFileInput {
  return {
    wire_formats: { openai_chat: { family: 'chat' }, bedrock_converse: { family: 'chat' } },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/model/{model}/converse-stream', format: 'bedrock_converse', stream: true },
    ],
    converters: [{ from: 'openai_chat', to: 'bedrock_converse' }],
    credentials: {
      aws: { kind: 'aws_sigv4', region: 'eu-west-1', service: 'bedrock', access_key_id: 'AWS_ACCESS_KEY_ID', secret_access_key: 'AWS_SECRET_ACCESS_KEY' },
    },
    providers: { bedrock: { base_url: 'https://bedrock-runtime.eu-west-1.amazonaws.com', credential: 'aws' } },
    operations: [
      { provider: 'bedrock', format: 'bedrock_converse', family: 'chat', path: '/model/{model}/converse', stream_path: '/model/{model}/converse-stream' },
    ],
    models: {
      nova: {
        brand: 'amazon',
        entry_formats: ['openai_chat', 'bedrock_converse'],
        capabilities: { max_output_tokens: 1000 },
        deployments: [
          {
            id: 'nova@bedrock',
            provider: 'bedrock',
            format: 'bedrock_converse',
            upstream_model: 'eu.amazon.nova-micro-v1:0',
            pricing: { unit: 'usd_per_mtok', input: '0.035', output: '0.14' },
          },
        ],
      },
    },
  };
}

async function setup() {
  const seen: Array<{ url: string; ok: boolean; reason?: string }> = [];
  const fetch = async (url: string, init: RequestInit & { headers: Headers }) => {
    const body = new Uint8Array(await new Response(init.body as BodyInit).arrayBuffer());
    const check = await checkSigV4(new Request(url, { method: 'POST', headers: init.headers, body }), body, {
      accessKeyId: AWS_KEYS.AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_KEYS.AWS_SECRET_ACCESS_KEY,
    });
    seen.push({ url, ok: check.ok, ...(check.reason === undefined ? {} : { reason: check.reason }) });
    if (!check.ok) return new Response('{"message":"bad signature"}', { status: 403, headers: { 'x-amzn-errortype': 'InvalidSignatureException' } });
    return new Response(STREAM.slice(), { headers: { 'content-type': 'application/vnd.amazon.eventstream' } });
  };
  const { key, identity } = await aliceIdentity();
  const records: UsageRecord[] = [];
  const handler = createEdgeHandler({
    registry: registry(),
    identity,
    secrets: { AWS_ACCESS_KEY_ID: AWS_KEYS.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: AWS_KEYS.AWS_SECRET_ACCESS_KEY },
    fetch,
    usage: (r) => void records.push(r),
  });
  open.push(handler);
  return { handler, key, seen, records };
}

describe('createEdgeHandler with a Bedrock upstream', () => {
  it('a Bedrock client: the call signed for eu-west-1, the event stream relayed as it came, usage recorded', async () => {
    const { handler, key, seen, records } = await setup();
    const waited: Array<Promise<unknown>> = [];
    const response = await handler(
      new Request('https://gw.test/model/nova/converse-stream', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        // The tools the stream was recorded with: Bedrock billed 471 input tokens, its tool prompt included.
        body: JSON.stringify({
          messages: [{ role: 'user', content: [{ text: 'hi' }] }],
          toolConfig: {
            tools: [{ toolSpec: { name: 'get_temperature', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } }],
          },
        }),
      }),
      {},
      { waitUntil: (p: Promise<unknown>) => void waited.push(p) },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(STREAM);
    expect(seen).toEqual([{ url: 'https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.amazon.nova-micro-v1:0/converse-stream', ok: true }]);
    // The event stream's record is what the platform is told to wait for, as for an SSE stream.
    expect(waited).toHaveLength(1);
    await Promise.all(waited);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 'ok', entry_format: 'bedrock_converse', usage: { input: 471, output: 91, measured: true } });
  });

  it('an OpenAI client: the same stream as Chat chunks', async () => {
    const { handler, key } = await setup();
    const response = await handler(
      new Request('https://gw.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'nova', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text).toContain('"name":"get_temperature"');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });
});
