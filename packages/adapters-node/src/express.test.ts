import type { AddressInfo } from 'node:net';
import express from 'express';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { expressMiddleware } from './express.js';
import { describeAdapter, type Served } from './__tests__/adapter-suite.js';

function listen(app: express.Express, mount = ''): Promise<Served> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}${mount}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

const harness = describeAdapter('Express', (gateway) => {
  const app = express();
  app.get('/own', (_req, res) => void res.json({ mine: true }));
  app.use(expressMiddleware(gateway));
  return listen(app);
});

describe('expressMiddleware', () => {
  it('calls next() for paths the gateway does not route, so the app’s own routes and 404 still work', async () => {
    const base = harness.served().url;
    expect(await (await fetch(`${base}/own`)).json()).toEqual({ mine: true });
    const miss = await fetch(`${base}/not-a-gateway-path`, { method: 'POST', body: '{}' });
    expect(miss.status).toBe(404);
    expect(await miss.text()).toContain('Cannot POST /not-a-gateway-path'); // Express's own 404
  });

  it('works under a mount path, after a JSON body parser on another router', async () => {
    const app = express();
    app.use('/api', express.json(), (req, res) => void res.json({ parsed: req.body }));
    app.use('/llm', expressMiddleware(harness.gateway()));
    const served = await listen(app, '/llm');
    try {
      const client = new OpenAI({ apiKey: harness.key(), baseURL: `${served.url}/v1`, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toMatch(/^Hi there!/);
      const origin = served.url.slice(0, -'/llm'.length);
      const api = await fetch(`${origin}/api`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(await api.json()).toEqual({ parsed: { a: 1 } });
    } finally {
      await served.close();
    }
  });

  it('uses a body a parser already read', async () => {
    const app = express();
    app.use(express.json(), expressMiddleware(harness.gateway()));
    const served = await listen(app);
    try {
      const client = new OpenAI({ apiKey: harness.key(), baseURL: `${served.url}/v1`, maxRetries: 0 });
      const res = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(res.choices[0]!.message.role).toBe('assistant');
    } finally {
      await served.close();
    }
  });
});
