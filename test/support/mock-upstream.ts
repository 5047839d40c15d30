import { fixtureText } from './fixtures.js';
import { chunkedResponse, startServer, type TestServer } from './http-server.js';

/** One scripted upstream behaviour, chosen by the first path segment (a provider's base_url prefix). */
export type Scenario = (request: Request, body: Record<string, unknown>) => Response | Promise<Response>;

export interface MockUpstream extends TestServer {
  /** Requests per scenario prefix. */
  hits(prefix: string): number;
}

/**
 * A local mock upstream replaying recorded wire traffic. Providers in a test registry point
 * their base_url at `${url}/<scenario>`, so one server plays many upstreams.
 */
export async function startMockUpstream(scenarios: Record<string, Scenario>): Promise<MockUpstream> {
  const counts = new Map<string, number>();
  const server = await startServer(async (request) => {
    const url = new URL(request.url);
    const [, prefix = ''] = url.pathname.split('/');
    counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
    const scenario = scenarios[prefix];
    if (scenario === undefined) return new Response(`no scenario ${prefix}`, { status: 404 });
    const text = await request.clone().text();
    let body: Record<string, unknown>;
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      return new Response('bad json', { status: 400 });
    }
    return scenario(request, body);
  });
  return Object.assign(server, { hits: (prefix: string) => counts.get(prefix) ?? 0 });
}

/** Serve a recorded SSE fixture as a stream, or a recorded JSON fixture, depending on `stream` in the body. */
export function replay(streamFixture: string, jsonFixture: string, options: { chunkSize?: number; delayMs?: number } = {}): Scenario {
  return (_request, body) => {
    if (body.stream === true) {
      const text = fixtureText(streamFixture);
      const size = options.chunkSize ?? 64;
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      return chunkedResponse(chunks, {}, options.delayMs ?? 0);
    }
    return new Response(fixtureText(jsonFixture), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

export function status(code: number, body: unknown, headers: Record<string, string> = {}): Scenario {
  return () => new Response(JSON.stringify(body), { status: code, headers: { 'content-type': 'application/json', ...headers } });
}
