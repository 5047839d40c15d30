import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serviceGate } from './services.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('serviceGate', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('skips, saying why, when a service is down and not required', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubEnv('TOLLGATE_REDIS_URL', `redis://127.0.0.1:${await freePort()}`);
    vi.stubEnv('TOLLGATE_REQUIRE_REDIS', '');
    const gate = await serviceGate('redis');
    expect(gate).toMatchObject({ up: false, required: false, skip: true });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/skipping redis tests: redis at .* is unreachable/));
    expect(() => gate.assertUp()).toThrow(/unreachable/);
  });

  it('does not skip, and fails loudly, when the service is required', async () => {
    vi.stubEnv('TOLLGATE_POSTGRES_URL', `postgres://postgres@127.0.0.1:${await freePort()}/test`);
    vi.stubEnv('TOLLGATE_REQUIRE_POSTGRES', '1');
    const gate = await serviceGate('postgres');
    expect(gate).toMatchObject({ up: false, required: true, skip: false });
    expect(() => gate.assertUp()).toThrow(/TOLLGATE_REQUIRE_POSTGRES is set/);
  });

  it('answers for a listening server that speaks the protocol', async () => {
    const server = createServer((socket) => socket.once('data', () => socket.end('+PONG\r\n')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    vi.stubEnv('TOLLGATE_REDIS_URL', `redis://127.0.0.1:${port}`);
    try {
      expect(await serviceGate('redis')).toMatchObject({ up: true, skip: false, reason: '' });
    } finally {
      server.close();
    }
  });
});
