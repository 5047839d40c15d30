/**
 * The DLP matrix (test/support/dlp-matrix.ts) in-process: `gateway.fetch` for the openai and
 * Anthropic SDKs, `gateway.handle` behind a loopback server for @google/genai (which takes no
 * fetch), against echo upstreams of every format.
 */
import { afterAll, beforeAll } from 'vitest';
import { createGateway, type UsageRecord } from '@tollgate/core';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { MATRIX_POLICY, MATRIX_PRINCIPAL, MATRIX_VARIANTS, describeDlpMatrix, type MatrixTarget } from './support/dlp-matrix.js';
import { startServer, type TestServer } from './support/http-server.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { sdkClients } from './support/sdk-ask.js';

let upstream: MockUpstream;
let server: TestServer;
let target: MatrixTarget;
const seen: Seen[] = [];
const records: UsageRecord[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream(echoScenarios(MATRIX_VARIANTS, seen));
  const ids = await keysFor(MATRIX_PRINCIPAL);
  const gateway = createGateway({
    registry: echoRegistry(upstream.url, Object.keys(MATRIX_VARIANTS)),
    policy: MATRIX_POLICY,
    identity: ids.identity,
    secrets: ECHO_SECRETS,
    usage: (r) => void records.push(r),
    dlp: { key: 'matrix-key' },
  });
  server = await startServer((request) => gateway.handle(request));
  target = { clients: sdkClients(ids.keys.alice!, server.url, gateway.fetch), records: () => records as unknown as Array<Record<string, unknown>>, seen };
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

describeDlpMatrix('in-process', () => target);
