/**
 * The floor of any proxy in the serve benchmark: a node:http server that hands each request's
 * bytes to the upstream unchanged over a keep-alive agent and the answer's bytes back — no
 * parsing, no translation, no governance. Clients send it the Anthropic request itself (as to
 * direct), so what it adds over direct is what one more process and two more hops cost on this
 * machine. Started as `node --import tsx test/bench/serve/pipe.ts <upstream origin>`; prints
 * `listening <port>`.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = process.argv[2];
if (upstream === undefined || !/^http:\/\/127\.0\.0\.1:\d+$/.test(upstream)) {
  process.stderr.write('usage: pipe.ts http://127.0.0.1:<port>\n');
  process.exit(2);
}
const target = new URL(upstream);
const agent = new Agent({ keepAlive: true, noDelay: true });

const server = createServer((req, res) => {
  const out = request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, agent, headers: { ...req.headers, host: target.host } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  req.pipe(out);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
