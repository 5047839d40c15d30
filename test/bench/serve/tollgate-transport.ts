/**
 * `tollgate serve` with another upstream transport, for the serve benchmark's transport
 * comparison: the same built packages and the same service as the `tollgate` command, only the
 * `fetch` handed to the gateway differs. Started as
 * `node --import tsx test/bench/serve/tollgate-transport.ts <transport> --config FILE`, where
 * <transport> is
 *
 * - `default`: what `createNodeUpstream()` returns (what `tollgate serve` runs: the built-in
 *   HTTP/1.1 client for direct calls);
 * - `undici`: `createNodeUpstream({ client: 'undici' })` (undici's dispatch with a streaming
 *   handler for every call, bounds and body queue alike);
 * - `undici-request`: undici's `Agent#request` (a Node `Readable` body per call);
 * - `fetch`: Node's global `fetch` (the gateway's default outside Node's adapters).
 * It prints what `tollgate serve` prints and drains on SIGTERM like it.
 */
import * as adapters from '@tollgate/adapters-node';
import type { HeaderReader, UpstreamFetch, UpstreamResponse } from '@tollgate/core';
import { Agent } from 'undici';

type Transport = UpstreamFetch & { close(): unknown };

function undiciRequest(): Transport {
  const agent = new Agent({ keepAliveTimeout: 4000 });
  const call = (async (url: string, init: RequestInit & { headers: Headers }): Promise<UpstreamResponse> => {
    const u = new URL(url);
    const headers: string[] = [];
    init.headers.forEach((value, name) => void headers.push(name, value));
    const res = await agent.request({
      origin: u.origin,
      path: u.pathname + u.search,
      method: 'POST',
      headers,
      body: init.body as string | Uint8Array,
      ...(init.signal === null || init.signal === undefined ? {} : { signal: init.signal }),
    });
    const reader: HeaderReader = {
      get(name) {
        const v = res.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
      has(name) {
        return res.headers[name.toLowerCase()] !== undefined;
      },
    };
    return { status: res.statusCode, headers: reader, body: res.body };
  }) as Transport;
  call.close = () => agent.close();
  return call;
}

function globalFetch(): Transport {
  const call = ((url: string, init: RequestInit & { headers: Headers }) => fetch(url, init)) as unknown as Transport;
  call.close = () => {};
  return call;
}

const [transport = 'default', ...args] = process.argv.slice(2);
const configAt = args.indexOf('--config');
const file = configAt === -1 ? 'tollgate.yaml' : args[configAt + 1]!;
const makers: Record<string, () => Transport> = {
  default: () => adapters.createNodeUpstream(),
  undici: () => adapters.createNodeUpstream({ client: 'undici' }),
  'undici-request': undiciRequest,
  fetch: globalFetch,
};
const make = makers[transport];
if (make === undefined) throw new Error(`unknown transport ${transport} (one of ${Object.keys(makers).join(', ')})`);
const upstream = make();

const loaded = await adapters.loadService(file);
if (!loaded.ok) {
  process.stderr.write(`tollgate-transport: ${adapters.formatViolations(loaded.errors)}\n`);
  process.exit(1);
}
const service = await adapters.startService(loaded.service, { upstream, log: (line) => void process.stderr.write(`${line} [transport ${transport}]\n`) });
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void service.shutdown().then(() => process.exit(0));
});
