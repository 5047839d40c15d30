/**
 * What the minimal Worker bundles: `examples/edge-worker` (createWorker of
 * `@tollgate/adapters-edge/minimal` with two codecs), bundled as Worker tooling does, holds no
 * code of the parts the minimal entry takes only when given (OpenTelemetry, the DLP engine and
 * the answer scanning it drives, JWT verification with jose, tool allow lists and policy
 * prompts). The same Worker on the root entry
 * holds each of them, so a pattern below that stopped matching anything would fail here too.
 * Neither entry holds the schema descriptions or the JSON Schema generator. Its size against the
 * 80 KiB target is a bench (test/bench/edge-bundle.bench.ts), not a test.
 */
import { describe, expect, it } from 'vitest';
import { bundleEdge, formatMessages } from './support/edge/bundle.js';

const ENTRY = 'examples/edge-worker/worker.ts';

/** Parts of the root entry that the minimal one must not bundle unless asked. */
const OPT_IN: Record<string, RegExp> = {
  'OpenTelemetry API': /^node_modules\/@opentelemetry\//,
  'telemetry instruments and spans': /^packages\/core\/src\/telemetry\//,
  'DLP engine and answer scanning': /^packages\/core\/src\/dlp\//,
  'DLP detectors and output guard': /^packages\/policy\/src\/detect\//,
  'DLP text walking': /^packages\/core\/src\/gateway\/ir-texts\.ts$/,
  jose: /^node_modules\/jose\//,
  'JWT verification, key sets and claims': /^packages\/core\/src\/identity\/(jwt|jwks|claims|jose)\.ts$/,
  'tool allow lists and policy prompts (content engine)': /^packages\/core\/src\/content\/|^packages\/policy\/src\/(tools|prompts)\.ts$/,
};

/** Code no Worker runs: the documented schema sources (validation uses their runtime copies) and JSON Schema generation. */
const NEVER: Record<string, RegExp> = {
  'documented schema modules (descriptions)': /^packages\/(policy\/src|core\/src\/registry|core\/src\/identity)\/schema\.ts$/,
  'JSON Schema generation':
    /^node_modules\/zod\/v4\/core\/(to-json-schema|json-schema[^/]*)\.js$|^packages\/(policy\/src|core\/src\/registry)\/json-schema\.ts$/,
};

/** The modules a bundle holds code of (bytes in the output), node_modules paths shortened. */
async function bundled(alias: Record<string, string> = {}): Promise<string[]> {
  const { result, errors } = await bundleEdge({ entryPoints: { worker: ENTRY }, platform: 'browser', minify: true, alias });
  expect(errors, formatMessages(errors)).toEqual([]);
  const output = Object.values(result.metafile.outputs)[0]!;
  return Object.entries(output.inputs)
    .filter(([, v]) => v.bytesInOutput > 0)
    .map(([k]) => k.replace(/^(?:.*\/)?node_modules\//, 'node_modules/'));
}

describe('the minimal Worker bundles only what it asks for', () => {
  it.each(Object.entries(OPT_IN))('holds no %s', async (_part, pattern) => {
    const modules = await bundled();
    // It is the real Worker: the gateway and the two codecs are there.
    expect(modules).toContain('packages/core/src/gateway/walk.ts');
    expect(modules).toContain('packages/codecs/src/openai-chat/decode-request.ts');
    expect(modules.filter((m) => pattern.test(m))).toEqual([]);
  });

  it('while the same Worker on the root entry holds every one of those parts', async () => {
    const modules = await bundled({ '@tollgate/adapters-edge/minimal': '@tollgate/adapters-edge' });
    for (const [part, pattern] of Object.entries(OPT_IN))
      expect(
        modules.some((m) => pattern.test(m)),
        part,
      ).toBe(true);
  });

  it.each(Object.entries(NEVER))('neither entry holds %s', async (_part, pattern) => {
    for (const alias of [{}, { '@tollgate/adapters-edge/minimal': '@tollgate/adapters-edge' }] as Array<Record<string, string>>) {
      const modules = await bundled(alias);
      expect(modules).toContain('packages/policy/src/runtime-schema.ts');
      expect(modules.filter((m) => pattern.test(m))).toEqual([]);
    }
  });
});
