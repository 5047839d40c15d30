/**
 * The bare baseline of the serve benchmark, in its own process: a node:http server that does
 * the same OpenAI Chat → Anthropic translation as the gateways with `@tollgate/codecs` alone
 * (convertRequest, convertResponse, convertStream) and `fetch` for the upstream call — no
 * identity, policy, reservation, pricing or usage record. Started as
 * `node --import tsx test/bench/serve/proxy.ts <upstream origin>` (the built `@tollgate/codecs`,
 * as tollgate serve runs on the built packages; with `--conditions=@tollgate/source` the
 * sources); prints `listening <port>`.
 *
 * POST /d<N>/v1/chat/completions → POST <upstream>/d<N>/v1/messages.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { convertRequest, convertResponse, convertStream } from '@tollgate/codecs';

const upstream = process.argv[2];
if (upstream === undefined || !/^http:\/\/127\.0\.0\.1:\d+$/.test(upstream)) {
  process.stderr.write('usage: proxy.ts http://127.0.0.1:<port>\n');
  process.exit(2);
}
const MODEL = 'claude-sonnet-4-5';
const apiKey = process.env.ANTHROPIC_API_KEY ?? 'sk-ant-bench';

function fail(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type: 'proxy_error' } }));
}

async function writeStream(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((r) => res.once('drain', r));
  }
  res.end();
}

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const match = /^\/(d\d+)\/v1\/chat\/completions$/.exec(req.url ?? '');
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (match === null || req.method !== 'POST') return fail(res, 404, 'no route');
    void (async () => {
      const converted = convertRequest(JSON.parse(Buffer.concat(chunks).toString('utf8')), 'openai_chat', 'anthropic_messages', { model: MODEL });
      const answer = await fetch(`${upstream}/${match[1]}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(converted.body),
      });
      if (!answer.ok || answer.body === null) {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text());
        return;
      }
      if (converted.body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        await writeStream(convertStream(answer.body, 'anthropic_messages', 'openai_chat', { model: MODEL }), res);
      } else {
        const out = JSON.stringify(convertResponse(await answer.json(), 'anthropic_messages', 'openai_chat', { model: MODEL }).body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }).end(out);
      }
    })().catch((error: unknown) => fail(res, 502, error instanceof Error ? error.message : String(error)));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
