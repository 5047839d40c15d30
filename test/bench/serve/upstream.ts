/**
 * The mock Anthropic Messages upstream of the serve benchmark, in its own process:
 * `node --import tsx test/bench/serve/upstream.ts` prints `listening <port>` once bound to
 * 127.0.0.1 (an ephemeral port).
 *
 * POST /d<N>/v1/messages answers after N ms (d0: at once; d20: 20 ms): a JSON body replaying
 * anthropic-messages/response-cache-read.json, or, when the request has `"stream": true`, the
 * SSE stream anthropic-messages/stream-text.sse in two bursts — every event up to and including
 * the first content_block_delta, then (after N ms again, or the next turn of the event loop for
 * d0) the rest. So a client's time to first byte is the first burst, not the whole stream.
 * GET /stats returns the number of requests served per prefix.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixtureText } from '../../support/fixtures.ts';

const json = Buffer.from(fixtureText('anthropic-messages/response-cache-read.json'));
const sse = fixtureText('anthropic-messages/stream-text.sse');
const cut = sse.indexOf('\n\n', sse.indexOf('event: content_block_delta')) + 2;
const firstBurst = Buffer.from(sse.slice(0, cut));
const rest = Buffer.from(sse.slice(cut));

const counts: Record<string, number> = {};
let requestSeq = 0;

function answer(req: IncomingMessage, res: ServerResponse, delayMs: number, body: Buffer): void {
  let parsed: { stream?: unknown };
  try {
    parsed = JSON.parse(body.toString('utf8')) as { stream?: unknown };
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}');
    return;
  }
  const later = (fn: () => void) => (delayMs > 0 ? setTimeout(fn, delayMs) : setImmediate(fn));
  const requestId = `req_bench_${++requestSeq}`;
  if (parsed.stream === true) {
    later(() => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId });
      res.write(firstBurst);
      later(() => res.end(rest));
    });
  } else {
    later(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': json.length, 'request-id': requestId });
      res.end(json);
    });
  }
  void req;
}

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const url = req.url ?? '/';
  if (req.method === 'GET' && url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
    return;
  }
  const match = /^\/d(\d+)\/v1\/messages(\?|$)/.exec(url);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const prefix = match === null ? url : `d${match[1]}`;
    counts[prefix] = (counts[prefix] ?? 0) + 1;
    if (match === null || req.method !== 'POST') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(`{"type":"error","error":{"type":"not_found_error","message":"no route ${req.method} ${url}"}}`);
      return;
    }
    answer(req, res, Number(match[1]), Buffer.concat(chunks));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
