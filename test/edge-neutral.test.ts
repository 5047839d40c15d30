/**
 * policy, codecs, core and adapters-edge run wherever the Fetch API, Web Streams and Web
 * Crypto exist: no `node:` import, no Node built-in, no Node global.
 *
 * 1. Bundle each package's entry with esbuild, platform neutral: any import (or require) of a
 *    Node built-in is reported with its importer. Done from sources, so it needs no build;
 *    the built `dist` is checked the same way when it exists.
 * 2. Run a bundled edge handler in a Node process where the bundle sees no Node global
 *    (process, Buffer, global, setImmediate …), with the handler made at module scope under
 *    Workers' global-scope rules (no timer, random value or fetch until a request comes).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createVirtualKey } from '@tollgate/core';
import { ROOT, bundleEdge, formatMessages, isNodeBuiltin, type NodeImport } from './support/edge/bundle.js';

const PACKAGES = ['policy', 'codecs', 'core', 'adapters-edge'] as const;

const offending = (imports: NodeImport[]) => imports.map((i) => `${i.path} ← ${i.importer} (${i.kind})`);
const tmp = mkdtempSync(join(tmpdir(), 'tollgate-edge-neutral-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('edge packages import nothing from Node', () => {
  it('recognises Node built-ins, bare or with node:', () => {
    for (const s of ['node:fs', 'fs', 'path', 'crypto', 'buffer', 'fs/promises', 'node:stream/web', 'process']) expect(isNodeBuiltin(s), s).toBe(true);
    for (const s of ['zod', 'jose', '@tollgate/core', './fs.js']) expect(isNodeBuiltin(s), s).toBe(false);
  });

  it('the source entries of policy, codecs, core and adapters-edge bundle for a neutral platform', async () => {
    const entryPoints = Object.fromEntries(PACKAGES.map((p) => [p, `packages/${p}/src/index.ts`]));
    const { nodeImports, errors, result } = await bundleEdge({ entryPoints });
    expect(errors, formatMessages(errors)).toEqual([]);
    expect(offending(nodeImports)).toEqual([]);
    // The bundle really holds all four packages and their dependencies.
    const inputs = Object.keys(result.metafile.inputs).join('\n');
    for (const p of PACKAGES) expect(inputs).toContain(`packages/${p}/src/`);
    for (const dep of ['zod', 'jose', 'eventsource-parser', 'aws4fetch']) expect(inputs).toContain(`node_modules/${dep}/`);
  });

  // Without a build this runs only in CI (which builds first), so a missing dist fails there instead of skipping.
  const built = PACKAGES.every((p) => existsSync(join(ROOT, `packages/${p}/dist/index.js`)));
  it.runIf(built || process.env.CI !== undefined)('their built dist (npm run build) bundles for a neutral platform too', async () => {
    const entryPoints = Object.fromEntries(PACKAGES.map((p) => [p, `packages/${p}/dist/index.js`]));
    // Only Node imports count here: a dist left stale by a partial build may fail to link for other reasons.
    const { nodeImports } = await bundleEdge({ entryPoints, sources: false });
    expect(offending(nodeImports)).toEqual([]);
  });

  it('with the conditions Worker tooling uses (workerd, worker, browser), nothing at all comes from Node', async () => {
    const { nodeImports, errors } = await bundleEdge({ entryPoints: { edge: 'packages/adapters-edge/src/index.ts' }, platform: 'browser' });
    expect(errors, formatMessages(errors)).toEqual([]);
    expect(nodeImports.map((i) => `${i.path} ← ${i.importer} (${i.kind})`)).toEqual([]);
  });
});

describe('a Worker bundles only the codecs it lists', () => {
  const codecFolders = (inputs: string[]) =>
    [
      ...new Set(
        inputs
          .map(
            (i) =>
              /^packages\/codecs\/src\/(openai-chat|openai-responses|anthropic-messages|anthropic-vertex|gemini|bedrock-converse)\/(?!envelope)/.exec(i)?.[1],
          )
          .filter((f) => f !== undefined),
      ),
    ].sort();
  const bundledCodecs = async (entry: string) => {
    const { result, errors } = await bundleEdge({ entryPoints: { worker: entry }, platform: 'browser', minify: true });
    expect(errors, formatMessages(errors)).toEqual([]);
    const output = Object.values(result.metafile.outputs)[0]!;
    return codecFolders(
      Object.entries(output.inputs)
        .filter(([, v]) => v.bytesInOutput > 0)
        .map(([k]) => k),
    );
  };

  it('examples/edge-worker (adapters-edge/minimal with two codecs) holds those two formats, no other', async () => {
    expect(await bundledCodecs('examples/edge-worker/worker.ts')).toEqual(['anthropic-messages', 'openai-chat']);
  });

  it('the root entry of adapters-edge holds all six', async () => {
    expect(await bundledCodecs('packages/adapters-edge/src/index.ts')).toEqual([
      'anthropic-messages',
      'anthropic-vertex',
      'bedrock-converse',
      'gemini',
      'openai-chat',
      'openai-responses',
    ]);
  });
});

describe('jose is loaded only for JWT verification', () => {
  it('sits behind a dynamic import: with code splitting, the Worker entry chunk holds no jose', async () => {
    const { result, errors } = await bundleEdge({ entryPoints: { edge: 'packages/adapters-edge/src/index.ts' }, platform: 'browser', splitting: true });
    expect(errors, formatMessages(errors)).toEqual([]);
    const outputs = Object.values(result.metafile.outputs).filter((o) => Object.keys(o.inputs).length > 0);
    const holdsJose = (o: (typeof outputs)[number]) => Object.keys(o.inputs).some((i) => i.startsWith('node_modules/jose/'));
    const entry = outputs.find((o) => o.entryPoint !== undefined)!;
    expect(holdsJose(entry)).toBe(false);
    expect(outputs.filter(holdsJose)).toHaveLength(1);
  });

  it('aws4fetch (SigV4 for Bedrock) sits behind a dynamic import too: no signing code in the entry chunk', async () => {
    const { result, errors } = await bundleEdge({ entryPoints: { edge: 'packages/adapters-edge/src/index.ts' }, platform: 'browser', splitting: true });
    expect(errors, formatMessages(errors)).toEqual([]);
    const outputs = Object.values(result.metafile.outputs).filter((o) => Object.keys(o.inputs).length > 0);
    const holdsSigner = (o: (typeof outputs)[number]) => Object.keys(o.inputs).some((i) => i.startsWith('node_modules/aws4fetch/'));
    const entry = outputs.find((o) => o.entryPoint !== undefined)!;
    expect(holdsSigner(entry)).toBe(false);
    expect(outputs.filter(holdsSigner)).toHaveLength(1);
  });
});

describe('an edge handler runs without Node globals, made at Worker module scope', () => {
  it('streams, answers JSON, refuses a wrong key, records usage, and refuses per-isolate caps without the opt-in', async () => {
    const { result: bundled, errors, nodeImports } = await bundleEdge({ entryPoints: { sandbox: 'test/support/edge/sandbox-entry.ts' } });
    expect(errors, formatMessages(errors)).toEqual([]);
    expect(offending(nodeImports)).toEqual([]);
    const file = join(tmp, 'sandbox.mjs');
    writeFileSync(file, bundled.outputFiles[0]!.contents);
    const { key, hash } = await createVirtualKey();
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'test/support/edge/strip-node-globals.mjs'), file, JSON.stringify({ key, hash })],
      {
        timeout: 30_000,
      },
    );
    const line = stdout.trim().split('\n').pop() ?? '';
    const out = JSON.parse(line) as { ok: boolean; touched: string[]; error?: string; result?: Record<string, unknown> };
    expect(out.error ?? '', stderr).toBe('');
    expect(out.ok).toBe(true);
    // Only guarded probes may look for a Node global (core reads `globalThis.process?.env` for default secrets; here secrets are given).
    expect(out.touched.filter((name) => name !== 'process')).toEqual([]);
    const r = out.result!;
    expect(r.streamedText).toBe('Hello from the edge');
    expect(r.streamedUsage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4 });
    expect(r.jsonText).toBe('Hello from the edge');
    expect(r.deniedStatus).toBe(401);
    expect(r.deniedBody).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect(r.records).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'ok', usage: expect.objectContaining({ input: 9, output: 4, measured: true }) as unknown }),
        expect.objectContaining({ status: 'rejected', http_status: 401 }),
      ]),
    );
    expect(r.upstreamAuth).toEqual(['Bearer sk-upstream-openai-0001', 'Bearer sk-upstream-openai-0001']);
    expect(r.refusal).toContain('mini-cap');
    expect(r.refusal).toContain('allowPerIsolateCaps');
  });
});
