import { connect } from 'node:net';

/**
 * Gates for tests that need a real Redis or Postgres. A service that cannot be reached
 * skips its tests with a visible warning, unless `TOLLGATE_REQUIRE_REDIS` /
 * `TOLLGATE_REQUIRE_POSTGRES` is set (CI): then the tests run and fail, saying why.
 *
 *   const redis = await serviceGate('redis');
 *   describe.skipIf(redis.skip)('...', () => { beforeAll(redis.assertUp); ... });
 */
export interface ServiceGate {
  name: 'redis' | 'postgres';
  url: string;
  up: boolean;
  required: boolean;
  /** Skip the tests: down and not required. */
  skip: boolean;
  /** Why the service is down (empty when up). */
  reason: string;
  /** Throws when the service is down (call in beforeAll so a required service fails loudly). */
  assertUp: () => void;
}

const DEFAULTS = {
  redis: { url: 'redis://127.0.0.1:6379', urlVar: 'TOLLGATE_REDIS_URL', requireVar: 'TOLLGATE_REQUIRE_REDIS' },
  postgres: {
    url: 'postgres://postgres@127.0.0.1:5432/test',
    urlVar: 'TOLLGATE_POSTGRES_URL',
    requireVar: 'TOLLGATE_REQUIRE_POSTGRES',
  },
} as const;

const truthy = (value: string | undefined): boolean => value !== undefined && value !== '' && value !== '0';

/** Connect, send `probe`, resolve with the first bytes back (or reject within `timeoutMs`). */
function exchange(url: URL, defaultPort: number, probe: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname || '127.0.0.1', port: Number(url.port || defaultPort) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => socket.write(probe));
    socket.once('data', (data) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(data);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

async function probe(name: 'redis' | 'postgres', url: string): Promise<string> {
  try {
    const parsed = new URL(url);
    if (name === 'redis') {
      const reply = (await exchange(parsed, 6379, Buffer.from('PING\r\n'), 1000)).toString();
      // +PONG, or -NOAUTH when a password is needed (still up).
      return reply.startsWith('+PONG') || reply.startsWith('-NOAUTH') ? '' : `unexpected reply ${JSON.stringify(reply)}`;
    }
    // An SSLRequest: any Postgres answers with a single 'S' or 'N'.
    const ssl = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
    const reply = (await exchange(parsed, 5432, ssl, 1000)).toString();
    return reply === 'S' || reply === 'N' ? '' : `unexpected reply ${JSON.stringify(reply)}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export async function serviceGate(name: 'redis' | 'postgres'): Promise<ServiceGate> {
  const d = DEFAULTS[name];
  const url = process.env[d.urlVar] || d.url;
  const required = truthy(process.env[d.requireVar]);
  const problem = await probe(name, url);
  const up = problem === '';
  const reason = up ? '' : `${name} at ${url} is unreachable (${problem})`;
  if (!up && !required) {
    console.warn(`[tollgate tests] skipping ${name} tests: ${reason}; set ${d.requireVar}=1 to make them fail instead`);
  }
  return {
    name,
    url,
    up,
    required,
    skip: !up && !required,
    reason,
    assertUp: () => {
      if (!up) throw new Error(`${reason}, and ${d.requireVar} is set`);
    },
  };
}
