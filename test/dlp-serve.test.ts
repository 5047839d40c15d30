/**
 * The DLP matrix (test/support/dlp-matrix.ts) through `tollgate serve` as a real process: the
 * policy file's DLP, tool and prompt keys enforced for every client SDK and every upstream
 * format, records read from its stdout (JSON lines).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { MATRIX_POLICY, MATRIX_PRINCIPAL, MATRIX_VARIANTS, describeDlpMatrix, type MatrixTarget } from './support/dlp-matrix.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { sdkClients } from './support/sdk-ask.js';
import { CLI, jsonLines, spawnTs, type Spawned } from './cli-support.js';

let upstream: MockUpstream;
let serve: Spawned | undefined;
let target: MatrixTarget;
const seen: Seen[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream(echoScenarios(MATRIX_VARIANTS, seen));
  const ids = await keysFor(MATRIX_PRINCIPAL);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-dlp-serve-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(echoRegistry(upstream.url, Object.keys(MATRIX_VARIANTS))));
  writeFileSync(join(dir, 'policy.yaml'), stringify(MATRIX_POLICY));
  writeFileSync(
    join(dir, 'tollgate.yaml'),
    stringify({ listen: { host: '127.0.0.1', port: 0 }, registry: './registry.yaml', policy: './policy.yaml', identity: ids.identity, usage: 'stdout' }),
  );
  const p = spawnTs([CLI, 'serve', '--config', join(dir, 'tollgate.yaml')], { env: ECHO_SECRETS });
  serve = p;
  const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  target = { clients: sdkClients(ids.keys.alice!, url!), records: () => jsonLines(p.stdout()), seen };
});

afterAll(async () => {
  serve?.kill('SIGKILL');
  await upstream?.close();
});

describeDlpMatrix('tollgate serve', () => target);
