import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Family, WireFormat } from '@tollgate/codecs';
import { loadRegistry } from './load.js';
import { candidates } from './resolve.js';

const FORMATS: WireFormat[] = ['openai_chat', 'openai_responses', 'anthropic_messages', 'anthropic_vertex', 'gemini_generate_content', 'bedrock_converse'];
const FAMILY: Record<WireFormat, Family> = {
  openai_chat: 'chat',
  openai_responses: 'responses',
  anthropic_messages: 'chat',
  anthropic_vertex: 'chat',
  gemini_generate_content: 'chat',
  bedrock_converse: 'chat',
};
const PROVIDERS = ['p0', 'p1', 'p2'];

interface Dep {
  provider: string;
  format: WireFormat;
  enabled: boolean;
}
interface World {
  operations: { provider: string; format: WireFormat }[];
  converters: { from: WireFormat; to: WireFormat }[];
  models: { entry: WireFormat[]; deps: Dep[] }[];
}

const format = fc.constantFrom(...FORMATS);
const world: fc.Arbitrary<World> = fc.record({
  operations: fc.uniqueArray(fc.record({ provider: fc.constantFrom(...PROVIDERS), format }), {
    selector: (o) => `${o.provider}/${o.format}`,
    maxLength: 8,
  }),
  converters: fc.uniqueArray(
    fc.record({ from: format, to: format }).filter((c) => c.from !== c.to),
    { selector: (c) => `${c.from}/${c.to}`, maxLength: 8 },
  ),
  models: fc.array(
    fc.record({
      entry: fc.uniqueArray(format, { minLength: 1, maxLength: 3 }),
      deps: fc.array(fc.record({ provider: fc.constantFrom(...PROVIDERS), format, enabled: fc.boolean() }), { maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

function toRaw(w: World): unknown {
  return {
    wire_formats: Object.fromEntries(FORMATS.map((f) => [f, { family: FAMILY[f] }])),
    entry_routes: [],
    converters: w.converters,
    providers: Object.fromEntries(PROVIDERS.map((p) => [p, { base_url: `https://${p}.example` }])),
    operations: w.operations.map((o) => ({ ...o, family: FAMILY[o.format], path: '/x', stream_path: '/x-stream' })),
    models: Object.fromEntries(
      w.models.map((m, i) => [
        `m${i}`,
        {
          brand: 'b',
          entry_formats: m.entry,
          deployments: m.deps.map((d, j) => ({
            id: `m${i}-d${j}`,
            provider: d.provider,
            format: d.format,
            upstream_model: 'u',
            enabled: d.enabled,
            pricing: { unit: 'usd_per_mtok', input: '1', output: '1' },
          })),
        },
      ]),
    ),
  };
}

/** The invariant, as docs/registry.md states it, checked by exhaustive search over the raw lists. */
function bruteForce(w: World): { unserved: Set<string>; serving: Map<string, Set<number>> } {
  const unserved = new Set<string>();
  const serving = new Map<string, Set<number>>();
  w.models.forEach((m, i) => {
    if (!m.deps.some((d) => d.enabled)) return; // staged
    for (const f of m.entry) {
      const ok = new Set<number>();
      m.deps.forEach((d, j) => {
        const hasOp = w.operations.some((o) => o.provider === d.provider && o.format === d.format);
        const reachable = f === d.format || w.converters.some((c) => c.from === f && c.to === d.format);
        if (d.enabled && hasOp && reachable) ok.add(j);
      });
      serving.set(`m${i}/${f}`, ok);
      if (ok.size === 0) unserved.add(`m${i}/${f}`);
    }
  });
  return { unserved, serving };
}

describe('serviceability invariant (property)', () => {
  it('the checker agrees with a brute-force reference, and candidates are exactly the serving deployments', () => {
    const seen = { valid: 0, unserviceable: 0 };
    fc.assert(
      fc.property(world, (w) => {
        const expected = bruteForce(w);
        const result = loadRegistry(toRaw(w));
        const reported = new Set<string>();
        if (!result.ok) {
          for (const e of result.errors) {
            const m = /^models\.(m\d+)\.entry_formats\[\d+\]$/.exec(e.path);
            const f = /^not serviceable: no enabled deployment takes (\w+)/.exec(e.message);
            if (m && f) reported.add(`${m[1]}/${f[1]}`);
          }
        }
        expect(reported).toEqual(expected.unserved);
        if (result.ok) seen.valid++;
        if (expected.unserved.size > 0) seen.unserviceable++;
        const noOperation = w.models.some((m) =>
          m.deps.some((d) => d.enabled && !w.operations.some((o) => o.provider === d.provider && o.format === d.format)),
        );
        expect(result.ok).toBe(expected.unserved.size === 0 && !noOperation);
        if (result.ok) {
          for (const [key, ok] of expected.serving) {
            const [model, f] = key.split('/') as [string, WireFormat];
            const got = candidates(result.registry, model, f).map((c) => Number(c.deployment.id.split('-d')[1]));
            expect(new Set(got)).toEqual(ok);
          }
        }
      }),
      { numRuns: 500 },
    );
    // The generator must reach both outcomes often enough for the comparison to mean something.
    expect(seen.valid).toBeGreaterThan(25);
    expect(seen.unserviceable).toBeGreaterThan(25);
  });
});
