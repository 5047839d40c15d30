/**
 * `npm start`: a governed gateway on embedded defaults, answering offline from a scripted
 * mock provider. It serves the OpenAI Chat and Responses, Anthropic Messages and Gemini
 * entry paths; point any of those SDKs at it with the printed key. Usage records go to
 * stdout as JSON lines, everything else to stderr.
 *
 *   PORT=8787 (default; 0 picks a free port)   HOST=127.0.0.1 (default)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, createMemoryStore, createVirtualKey } from '@tollgate/core';
import { createJsonLinesSink, toNodeListener } from '@tollgate/adapters-node';
import { createMockProvider } from './mock-provider.js';
import { mockSecrets, policy, registry } from './registry.js';

const say = (line = '') => void process.stderr.write(`${line}\n`);

const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  say(`quickstart: PORT must be a port number (got "${process.env.PORT}")`);
  process.exit(1);
}

// A fresh demo key each start; only its hash is configured.
const demo = await createVirtualKey();

const gateway = createGateway({
  registry,
  policy,
  identity: { virtual_keys: [{ hash: demo.hash, principal: { user: 'demo', tier: 'normal', bu: 'quickstart' } }] },
  store: createMemoryStore(),
  usage: createJsonLinesSink('stdout'),
  secrets: mockSecrets,
  fetch: createMockProvider(),
});

const listener = toNodeListener(gateway);
const server = createServer((req, res) => {
  if (req.url === '/healthz' || req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  listener(req, res);
});

server.on('error', (error) => {
  say(`quickstart: cannot listen on ${host}:${port}: ${error.message}`);
  process.exit(1);
});

server.listen(port, host, () => {
  const { port: actual } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${actual}`;
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello, tollgate!' }] });
  say('tollgate quickstart: a governed gateway, answering offline from a scripted mock provider.');
  say();
  say(`  URL:      ${url}`);
  say(`  demo key: ${demo.key}   (user "demo"; a new key every start)`);
  say(`  models:   ${Object.keys(registry.models).join(', ')}`);
  say(`  paths:    ${registry.entry_routes.map((r) => r.path).join('  ')}`);
  say();
  say(`  try: curl -s ${url}/v1/chat/completions -H "authorization: Bearer ${demo.key}" -H "content-type: application/json" -d '${body}'`);
  say();
  say('  SDKs: new OpenAI({ baseURL: `${URL}/v1`, apiKey }), new Anthropic({ baseURL: URL, apiKey }),');
  say('        new GoogleGenAI({ apiKey, httpOptions: { baseUrl: URL } }).');
  say('  Tools: declare some and the mock calls the first one; send its result back and it answers with it.');
  say('  Usage records follow on stdout, one JSON line per request. Ctrl-C stops.');
});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) process.exit(1);
  stopping = true;
  say(`quickstart: ${signal} — finishing open requests, flushing usage`);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  await gateway.close({ drainMs: 5000 });
  server.closeAllConnections();
  await closed;
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
