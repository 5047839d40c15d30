import Fastify, { type FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fastifyPlugin } from './fastify.js';
import { describeAdapter, type Served } from './__tests__/adapter-suite.js';

async function listen(app: FastifyInstance, mount = ''): Promise<Served> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `${address}${mount}`,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

const harness = describeAdapter('Fastify', async (gateway) => {
  const app = Fastify();
  app.get('/own', async () => ({ mine: true }));
  app.post('/json', async (request) => ({ parsed: request.body }));
  await app.register(fastifyPlugin, { gateway });
  return listen(app);
});

describe('fastifyPlugin', () => {
  it('leaves the app’s own routes and body parsing alone', async () => {
    const base = harness.served().url;
    expect(await (await fetch(`${base}/own`)).json()).toEqual({ mine: true });
    const json = await fetch(`${base}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await json.json()).toEqual({ parsed: { a: 1 } });
    // Other paths reach the gateway, which answers 404 in the caller's format.
    const miss = await fetch(`${base}/v1/unknown`, { method: 'POST', body: '{}' });
    expect(miss.status).toBe(404);
  });

  it('works under a prefix', async () => {
    const app = Fastify();
    await app.register(fastifyPlugin, { gateway: harness.gateway(), prefix: '/llm' });
    const served = await listen(app, '/llm');
    try {
      const client = new OpenAI({ apiKey: harness.key(), baseURL: `${served.url}/v1`, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toMatch(/^Hi there!/);
    } finally {
      await served.close();
    }
  });

  it('refuses a plugin registered without a gateway', async () => {
    const app = Fastify();
    await expect(app.register(fastifyPlugin, {} as never).ready()).rejects.toThrow(/gateway/);
  });
});
