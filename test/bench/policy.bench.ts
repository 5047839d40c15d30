/**
 * decideSpend throughput and latency: 200 rules over 50 models and 5 windows.
 * Run: node --import tsx test/bench/policy.bench.ts   (targets: ≥ 100k decisions/s, p99 ≤ 20 µs)
 */
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import {
  counterLayout, decideAccess, decideRate, decideSpend, parsePolicy, windowKeys,
  type CounterValues, type Policy, type Principal, type RegistryView, type SpendCounters, type SpendWindow,
} from '../../packages/policy/src/index.ts';

const MODELS = 50;
const RULES = 200;
const PRINCIPALS = 1000;
const WINDOWS: SpendWindow[] = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'];
const TZ = 'America/New_York';
const NOW = Date.UTC(2026, 10, 29, 17, 30);

/** A small deterministic PRNG (the bench must be repeatable). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function fixture() {
  const rnd = lcg(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const families = ['claude', 'gpt', 'gemini', 'llama', 'mistral'];
  const grades = ['frontier', 'mid', 'small'];
  const models: Record<string, { tags: string[] }> = {};
  for (let i = 0; i < MODELS; i++) models[`model-${i}`] = { tags: [families[i % 5] as string, grades[i % 3] as string, `rack-${i % 10}`] };
  const registry: RegistryView = { models };
  const scopes = [...Object.keys(models), ...families, ...grades, 'all'];
  const tiers = ['normal', 'vip', 'trial'];
  const bus = ['payments', 'research', 'sales', 'support'];
  const rules = [];
  for (let r = 0; r < RULES; r++) {
    const window = WINDOWS[r % 5] as SpendWindow;
    const scope = pick(scopes);
    const base = (20 + Math.floor(rnd() * 20)) * ([1, 7, 30, 90, 365][WINDOWS.indexOf(window)] as number); // caps grow with the window
    const population = r % 4 === 0 ? { tiers: [pick(tiers)] } : r % 4 === 1 ? { bus: [pick(bus)] } : r % 4 === 2 ? { exempt_users: ['u7'] } : {};
    rules.push({
      id: `rule-${r}`, weight: Math.floor(rnd() * 100),
      matches: [
        { match: { scope, window, at_or_above_usd: String(Math.floor(base * 0.8)), ...population }, actions: [{ type: 'notify', to: ['user'] }] },
        { match: { scope, window, at_or_above_usd: String(base), ...population }, actions: r % 10 === 0 ? [{ type: 'pause', hours: 2 }] : [{ type: 'block' }] },
      ],
    });
  }
  const raw = { timezone: TZ, spend: { rules }, rate_limits: [{ id: 'tier', match: { tiers: ['normal'] }, rpm: 60, tpm: 100000 }] };
  const parsed = parsePolicy(raw, { registry });
  if (!parsed.ok) throw new Error(`bench policy invalid: ${JSON.stringify(parsed.errors.slice(0, 3))}`);
  const policy: Policy = parsed.policy;

  const keys = Object.values(windowKeys(NOW, TZ));
  const principals: Principal[] = [];
  const counters: SpendCounters[] = [];
  for (let p = 0; p < PRINCIPALS; p++) {
    principals.push({ kind: 'user', id: `u${p}`, tier: pick(tiers), bu: pick(bus), leaders: ['mgr', 'ceo'] });
    const c: Record<string, Record<string, number>> = {};
    for (const [w, key] of keys.entries()) {
      const row: Record<string, number> = {};
      for (let k = 0; k < 10; k++) row[`model-${Math.floor(rnd() * MODELS)}`] = Math.floor(rnd() * 4_000_000 * ([1, 7, 30, 90, 365][w] as number));
      c[key] = row;
    }
    counters.push(c);
  }
  const modelIds = Object.keys(models);
  // What a gateway passes: the counters the layout names, read in one round trip, in order.
  const layout = counterLayout({ policy, registry, now: NOW });
  const vectors: CounterValues[] = counters.map((c) => ({
    layout, values: Float64Array.from(layout.slots, ({ windowKey, model }) => c[windowKey]?.[model] ?? 0),
  }));
  return { registry, policy, principals, counters, vectors, modelIds };
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

export function run(): { name: string; lines: string[] } {
  const { registry, policy, principals, counters, vectors, modelIds } = fixture();
  const N = 200_000;
  const rnd = lcg(7);
  const cases = Array.from({ length: N }, () => [Math.floor(rnd() * PRINCIPALS), Math.floor(rnd() * MODELS)] as const);
  let blocked = 0;
  let caps = 0;
  const once = (i: number): void => {
    const [p, m] = cases[i % N] as readonly [number, number];
    const d = decideSpend({ policy, registry, principal: principals[p] as Principal, model: modelIds[m] as string, counters: vectors[p] as CounterValues, now: NOW + (i % 1000) });
    if (!d.allowed) blocked++;
    caps += d.hardCaps.length;
  };

  for (let i = 0; i < 20_000; i++) once(i); // warm up (and compile)

  // Rounds: on a shared machine one round can be preempted; report the median and the best.
  const ROUNDS = 5;
  const rates: number[] = [];
  const p50s: number[] = [];
  const p99s: number[] = [];
  let blockedShare = 0;
  let capsPer = 0;
  const samples = new Float64Array(20_000);
  for (let r = 0; r < ROUNDS; r++) {
    blocked = 0;
    caps = 0;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) once(i);
    rates.push(N / ((performance.now() - t0) / 1000));
    blockedShare = blocked / N;
    capsPer = caps / N;
    for (let i = 0; i < samples.length; i++) {
      const s = process.hrtime.bigint();
      once(i * 7 + r);
      samples[i] = Number(process.hrtime.bigint() - s) / 1000;
    }
    samples.sort();
    p50s.push(percentile(samples, 0.5));
    p99s.push(percentile(samples, 0.99));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const perSecond = median(rates);
  const p99 = median(p99s);

  const tn = performance.now();
  for (let i = 0; i < N; i++) {
    const [p, m] = cases[i] as readonly [number, number];
    decideSpend({ policy, registry, principal: principals[p] as Principal, model: modelIds[m] as string, counters: counters[p] as SpendCounters, now: NOW });
  }
  const nestedRate = N / ((performance.now() - tn) / 1000);

  let accessN = 0;
  const ta = performance.now();
  for (let i = 0; i < N; i++) {
    const [p, m] = cases[i] as readonly [number, number];
    if (decideAccess({ policy, registry, principal: principals[p] as Principal, model: modelIds[m] as string, now: NOW }).allowed) accessN++;
    decideRate({ policy, registry, principal: principals[p] as Principal, model: modelIds[m] as string });
  }
  const accessRate = N / ((performance.now() - ta) / 1000);

  const ok = perSecond >= 100_000 && p99 <= 20;
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  return {
    name: `policy: decideSpend, ${RULES} rules × ${MODELS} models × ${WINDOWS.length} windows`,
    lines: [
      `decideSpend: ${fmt(perSecond)} decisions/s median of ${ROUNDS} rounds, best ${fmt(Math.max(...rates))} (target ≥ 100,000)`,
      `latency: p50 ${median(p50s).toFixed(1)} µs, p99 ${p99.toFixed(1)} µs median of rounds, best p99 ${Math.min(...p99s).toFixed(1)} µs (target ≤ 20 µs)`,
      `per decision: ${capsPer.toFixed(1)} hard caps on average, ${(blockedShare * 100).toFixed(1)}% blocked; counters as a counterLayout vector`,
      `decideSpend with nested counter objects (10 models per window): ${Math.round(nestedRate).toLocaleString('en-US')} decisions/s`,
      `decideAccess + decideRate: ${Math.round(accessRate).toLocaleString('en-US')} pairs/s (${((accessN / N) * 100).toFixed(0)}% allowed)`,
      `targets: ${ok ? 'met' : 'MISSED'} (${cpus().length} cores, load average ${loadavg()[0]?.toFixed(1)} at the end: other processes share this machine)`,
    ],
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { name, lines } = run();
  console.log(name);
  for (const line of lines) console.log(`  ${line}`);
}
