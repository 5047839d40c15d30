/**
 * DLP cost per request, as ratios to a baseline measured in the same run.
 *
 * - Scanning: a 10 KB and a 1 MB prompt (prose with a value of some kind every ~1 KB) through
 *   every built-in detector, as stage 7 runs them (`scanText`), p50 per request. The baseline is
 *   one pass that only reads the text (a char-code sum), the least any scanner must do. Texts
 *   are flat strings, as `JSON.parse` of a request body makes them. Target: 10 KB ≤ 50 µs p50
 *   with every built-in detector on; linear growth (1 MB costs ~100× 10 KB, as the read does).
 * - Per request through the engine: a 10 KB OpenAI Chat request (system, three turns, a tool
 *   result) through `dlpEngine.apply` with every built-in entity on `log`, and on
 *   `pseudonymize` (surrogates keyed by HMAC, texts rewritten), against the same read.
 * - Streamed restoration: the output guard on an answer that echoes 8 surrogates in
 *   1-character deltas; time to the first handed-on byte and to the whole answer against the
 *   same text passed on with no guard.
 *
 * Each figure is the median of alternating rounds (scan, baseline, scan, …), so a burst of
 * load on the shared machine hits both sides.
 */
import { decodeRequest } from '../../packages/codecs/src/openai-chat/decode-request.ts';
import { dlpEngine } from '../../packages/core/src/dlp/engine.ts';
import { parsePolicy } from '../../packages/policy/src/index.ts';
import { BUILTIN_DETECTORS, BUILTIN_DLP_ENTITIES, OutputGuard, scanText } from '../../packages/policy/src/detect/index.ts';

const PROSE = 'The quick brown fox jumps over the lazy dog while the team reviews the quarterly report in detail. ';
const VALUES = [
  'jane.doe@acme.io',
  '+1 415 555 2671',
  '4111 1111 1111 1111',
  'DE89 3704 0044 0532 0130 00',
  '536-22-1234',
  '10.20.30.40',
  '2001:db8::1',
  'AKIAIOSFODNN7EXAMPLE',
];

/** A flat string, as a JSON request body decodes to (a concatenated one would be a rope). */
const flat = (s: string): string => JSON.parse(JSON.stringify(s)) as string;

function prompt(chars: number, salt = ''): string {
  let s = salt;
  let i = 0;
  while (s.length < chars) s += PROSE + (i++ % 10 === 0 ? `${VALUES[i % VALUES.length]} ` : '');
  return flat(s.slice(0, chars));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** p50 of `runs` timed calls, in µs, after a warm-up (and a collection, when `--expose-gc` allows it). */
function p50(fn: () => void, runs: number): number {
  for (let i = 0; i < Math.min(50, runs); i++) fn();
  gc?.();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return median(t) * 1000;
}

async function p50Async(fn: () => Promise<unknown>, runs: number): Promise<number> {
  for (let i = 0; i < Math.min(50, runs); i++) await fn();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return median(t) * 1000;
}

/** Alternating rounds of the measured work and its baseline: the medians of each. */
async function rounds(n: number, work: () => number | Promise<number>, base: () => number | Promise<number>): Promise<{ work: number; base: number }> {
  const w: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < n; r++) {
    w.push(await work());
    b.push(await base());
  }
  return { work: median(w), base: median(b) };
}

function readOnce(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h + text.charCodeAt(i)) | 0;
  return h;
}

const us = (x: number): string => (x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(1)} µs`);

export async function run() {
  const detectors = Object.values(BUILTIN_DETECTORS);
  const lines: string[] = [];

  // 1. Scanning, 10 KB and 1 MB. Two texts, alternated: digit groups are remembered for the last text scanned.
  const scans: Record<string, { work: number; base: number }> = {};
  for (const [label, size, runs] of [
    ['10 KB', 10 * 1024, 1000],
    ['1 MB', 1 << 20, 30],
  ] as const) {
    const texts = [prompt(size), prompt(size, ' ')];
    let k = 0;
    scans[label] = await rounds(
      7,
      () => p50(() => void scanText(texts[k++ & 1]!, detectors), runs),
      () => p50(() => void readOnce(texts[k++ & 1]!), runs),
    );
  }
  const small = scans['10 KB']!;
  const large = scans['1 MB']!;
  lines.push(
    `scan a 10 KB prompt, every built-in detector: ${(small.work / small.base).toFixed(1)}× one read of the text (p50 ${us(small.work)} vs ${us(small.base)}; target ≤ 50 µs: ${small.work <= 50 ? 'met' : 'MISSED'})`,
    `scan a 1 MB prompt: ${(large.work / large.base).toFixed(1)}× one read (p50 ${us(large.work)} vs ${us(large.base)}); growth from 10 KB to 1 MB ${(large.work / small.work).toFixed(0)}× for 102× the text (the read: ${(large.base / small.base).toFixed(0)}×)`,
  );

  // 2. Per request through the engine: find, decide, count (log); and rewrite with surrogates (pseudonymize).
  const turn = (n: number) => prompt(2 * 1024, `turn ${n}: `);
  const body = {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: turn(0) },
      { role: 'user', content: turn(1) },
      {
        role: 'assistant',
        content: turn(2),
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q: turn(3).slice(0, 1024) }) } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: turn(4) },
      { role: 'user', content: turn(5) },
    ],
  };
  const ir = decodeRequest(JSON.parse(JSON.stringify(body))).request;
  const allText = [
    ir.system.map((p) => p.text),
    ...ir.messages.flatMap((m) => m.content.map((p) => ('text' in p ? p.text : 'arguments' in p ? p.arguments : ''))),
  ].join('');
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('bench'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const principal = { kind: 'user' as const, id: 'alice' };
  for (const action of ['log', 'pseudonymize'] as const) {
    const parsed = parsePolicy({ dlp: { default: Object.fromEntries(BUILTIN_DLP_ENTITIES.map((e) => [e, action])) } });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const policy = parsed.policy;
    const prepared = dlpEngine.prepare(policy, []);
    const apply = () => dlpEngine.apply(prepared, { policy, principal, ir, key, enforce: true });
    const found = Object.values((await apply()).counts).reduce((n, c) => n + c.count, 0);
    const r = await rounds(
      7,
      () => p50Async(apply, 300),
      () => p50(() => void readOnce(allText), 300),
    );
    lines.push(
      `per request through the DLP engine, a ${(allText.length / 1024).toFixed(0)} KB OpenAI Chat request (5 messages, a tool call and result; ${found} values found), every built-in entity on \`${action}\`: ${(r.work / r.base).toFixed(1)}× one read of its text (p50 ${us(r.work)} vs ${us(r.base)})`,
    );
  }

  // 3. Streamed restoration: the answer echoes 8 surrogates; deltas of one character.
  const restore = new Map(VALUES.map((v, i) => [`s${i}rrogate${v.length}@x.example`, v] as const));
  const answer = [...restore.keys()].map((s) => `${PROSE}${s} `).join('');
  const rules = { restore, detectors: [], action: () => 'log' as const, marker: () => '' };
  const firstByte = (guarded: boolean) =>
    p50(() => {
      const g = guarded ? new OutputGuard(rules) : null;
      for (const ch of answer) {
        const out = g === null ? ch : g.push(ch);
        if (out.length > 0) break;
      }
    }, 2000);
  const whole = (guarded: boolean) =>
    p50(() => {
      const g = guarded ? new OutputGuard(rules) : null;
      let out = '';
      for (const ch of answer) out += g === null ? ch : g.push(ch);
      if (g !== null) out += g.end();
      return out;
    }, 300);
  const ttfb = await rounds(
    5,
    () => firstByte(true),
    () => firstByte(false),
  );
  const all = await rounds(
    5,
    () => whole(true),
    () => whole(false),
  );
  lines.push(
    `streamed answer with restoration on (8 surrogates, 1-character deltas): time to the first handed-on byte +${(ttfb.work - ttfb.base).toFixed(2)} µs over no guard (${ttfb.work.toFixed(2)} vs ${ttfb.base.toFixed(2)} µs; at most one surrogate window held back); the whole ${answer.length}-character answer ${(all.work / all.base).toFixed(1)}× no guard (${us(all.work)} vs ${us(all.base)})`,
  );
  return { name: 'policy: DLP scanning and streamed restoration', lines };
}
