/**
 * Registry resolution in a 500-model registry with aliases: lookups/s (target ≥ 1M/s) and the
 * load/validate time of that registry.
 * Run: node --import tsx test/bench/registry.bench.ts
 */
import { pathToFileURL } from 'node:url';
import {
  candidates,
  loadRegistry,
  pickWeighted,
  priceUsage,
  resolveEntry,
  resolveModel,
  worstCaseCost,
  type Registry,
} from '../../packages/core/src/registry/index.js';

const MODELS = 500;

/** A registry shaped like a large multi-vendor catalogue: 500 models, 1000 aliases, 1500 deployments. */
export function bigRegistry(): Record<string, unknown> {
  const vendors = [
    { brand: 'anthropic', format: 'anthropic_messages', provider: 'anthropic', entry: ['anthropic_messages', 'openai_chat'] },
    { brand: 'openai', format: 'openai_chat', provider: 'openai', entry: ['openai_chat', 'anthropic_messages'] },
    { brand: 'google', format: 'gemini_generate_content', provider: 'google', entry: ['gemini_generate_content', 'openai_chat'] },
    { brand: 'meta', format: 'openai_chat', provider: 'vllm', entry: ['openai_chat'] },
  ];
  const models: Record<string, unknown> = {};
  for (let i = 0; i < MODELS; i++) {
    const v = vendors[i % vendors.length]!;
    const pricing = {
      unit: 'usd_per_mtok',
      input: `${(i % 7) + 1}.25`,
      output: `${(i % 11) + 2}.5`,
      cache_read: '0.30',
      cache_write: '3.75',
      threshold_tokens: 200000,
      long: { input: '6', output: '22.50', cache_read: '0.60', cache_write: '7.50' },
    };
    const deployments = [0, 1, 2].map((r) => ({
      id: `model-${i}@${v.provider}-${r}`,
      provider: r === 2 && v.brand === 'anthropic' ? 'vertex' : v.provider,
      format: r === 2 && v.brand === 'anthropic' ? 'anthropic_vertex' : v.format,
      upstream_model: `upstream-${i}`,
      region: ['us', 'eu', 'ap'][r],
      priority: r === 2 ? 2 : 1,
      weight: r === 0 ? 70 : 30,
      pricing,
    }));
    models[`model-${i}`] = {
      brand: v.brand,
      entry_formats: v.entry,
      aliases: [`model-${i}-latest`, `vendor/model-${i}`],
      tags: [v.brand, i % 3 === 0 ? 'frontier' : 'fast'],
      capabilities: { tools: true, context_window: 200000, max_output_tokens: 64000 },
      deployments,
    };
  }
  const providers = ['anthropic', 'openai', 'google', 'vllm', 'vertex'];
  return {
    wire_formats: {
      openai_chat: { family: 'chat' },
      anthropic_messages: { family: 'chat' },
      anthropic_vertex: { family: 'chat' },
      gemini_generate_content: { family: 'chat' },
    },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/messages', format: 'anthropic_messages' },
      { path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' },
      { path: '/v1beta/models/{model}:streamGenerateContent', format: 'gemini_generate_content', stream: true },
    ],
    converters: [
      { from: 'openai_chat', to: 'anthropic_messages' },
      { from: 'openai_chat', to: 'anthropic_vertex' },
      { from: 'anthropic_messages', to: 'anthropic_vertex' },
      { from: 'anthropic_messages', to: 'openai_chat' },
      { from: 'openai_chat', to: 'gemini_generate_content' },
    ],
    credentials: Object.fromEntries(providers.map((p) => [p, { kind: 'bearer', secret: `${p.toUpperCase()}_KEY` }])),
    providers: Object.fromEntries(providers.map((p) => [p, { base_url: `https://${p}.example`, credential: p }])),
    operations: [
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
      { provider: 'vertex', format: 'anthropic_vertex', family: 'chat', path: '/{model}:rawPredict', stream_path: '/{model}:streamRawPredict' },
      { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
      { provider: 'vllm', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
      {
        provider: 'google',
        format: 'gemini_generate_content',
        family: 'chat',
        path: '/v1beta/models/{model}:generateContent',
        stream_path: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
      },
    ],
    models,
  };
}

function load(raw: unknown): Registry {
  const result = loadRegistry(raw);
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return result.registry;
}

/** Runs `fn` for ~`ms` milliseconds (after a warm-up) and returns operations per second. */
function opsPerSecond(fn: (i: number) => unknown, ms = 400): number {
  let sink = 0;
  for (let i = 0; i < 20_000; i++) if (fn(i)) sink++;
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let k = 0; k < 10_000; k++, n++) if (fn(n)) sink++;
    elapsed = performance.now() - start;
  }
  if (sink < 0) console.log(sink);
  return (n / elapsed) * 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const fmt = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(0)}k`);

export async function run(): Promise<{ name: string; lines: string[] }> {
  const raw = bigRegistry();
  const json = JSON.stringify(raw);
  const loads: number[] = [];
  let registry = load(JSON.parse(json));
  for (let i = 0; i < 15; i++) {
    const copy = JSON.parse(json);
    const t0 = performance.now();
    registry = load(copy);
    loads.push(performance.now() - t0);
  }

  // Baselines measured in the same run: reading the file at all (JSON.parse of its text) and
  // the floor of any lookup (one bare Map.get per name).
  const parses: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    JSON.parse(json);
    parses.push(performance.now() - t0);
  }
  const bare = new Map<string, number>();
  for (let i = 0; i < MODELS; i++) bare.set(i % 2 === 0 ? `model-${i}` : `model-${i}-latest`, i);

  const names = Array.from({ length: MODELS }, (_, i) => (i % 2 === 0 ? `model-${i}` : `model-${i}-latest`));
  const paths = ['/v1/chat/completions', '/v1/messages'];
  const geminiPaths = names.map((n) => `/v1beta/models/${n}:streamGenerateContent`);

  const entry = opsPerSecond((i) => resolveEntry(registry, 'POST', paths[i & 1]!));
  const entryParam = opsPerSecond((i) => resolveEntry(registry, 'POST', geminiPaths[i % MODELS]!));
  const model = opsPerSecond((i) => resolveModel(registry, names[i % MODELS]!));
  const cands = opsPerSecond((i) => candidates(registry, names[i % MODELS]!, 'openai_chat').length);
  const floor = opsPerSecond((i) => bare.get(names[i % MODELS]!));
  const full = opsPerSecond((i) => {
    const e = resolveEntry(registry, 'POST', paths[i & 1]!);
    const m = e && resolveModel(registry, names[i % MODELS]!);
    return m && candidates(registry, m, e.format).length;
  });
  const sticky = opsPerSecond((i) => pickWeighted(candidates(registry, names[i % MODELS]!, 'openai_chat'), `user-${i}`).length);
  const pricing = registry.deployments['model-0@anthropic-0']!.pricing!;
  const usage = { input: 1200, output: 570, cacheRead: 4000, cacheWrite: 300, cacheWrite1h: 0, reasoning: 0, measured: true };
  const price = opsPerSecond(() => priceUsage(pricing, usage).total);
  const worst = opsPerSecond(() => worstCaseCost(pricing, { promptTokens: 250_000, outputTokens: 64_000 }));

  const ratio = (x: number, base: number) => `${(x / base).toFixed(2)}×`;
  const lines = [
    `registry: ${MODELS} models, ${MODELS * 2} aliases, ${MODELS * 3} deployments (${(json.length / 1024).toFixed(0)} KiB JSON)`,
    `load + validate + index + revision: median ${median(loads).toFixed(1)} ms (min ${Math.min(...loads).toFixed(1)} ms) = ${ratio(median(loads), median(parses))} the baseline, JSON.parse of the same text (${median(parses).toFixed(1)} ms)`,
    `full resolution (entry + model/alias + candidates): ${fmt(full)} lookups/s (target ≥ 1M/s) ${full >= 1e6 ? 'OK' : 'BELOW TARGET'} = ${ratio(full, floor)} the throughput of the baseline, one bare Map.get (${fmt(floor)}/s)`,
    `  resolveEntry exact path:  ${fmt(entry)}/s`,
    `  resolveEntry {model} path: ${fmt(entryParam)}/s`,
    `  resolveModel id/alias:    ${fmt(model)}/s`,
    `  candidates:               ${fmt(cands)}/s`,
    `pickWeighted (sticky):      ${fmt(sticky)}/s`,
    `priceUsage: ${fmt(price)}/s, worstCaseCost: ${fmt(worst)}/s`,
  ];
  return { name: 'registry', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void run().then(({ name, lines }) => {
    console.log(`# ${name}`);
    for (const line of lines) console.log(line);
  });
}
