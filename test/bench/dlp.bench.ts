/**
 * DLP scanning cost per request: a 10 KB and a 1 MB prompt (prose with a few values of each
 * kind) through every built-in detector, as stage 7 runs them (`scanText`), p50 per request;
 * the baseline in the same run is one pass that only reads the text (a char-code sum), the
 * least any scanner must do. Target: 10 KB ≤ 50 µs p50 with every built-in detector on.
 * Also: streamed restoration through the output guard, 1-character deltas, time to the first
 * handed-on byte against the same text passed through with no guard.
 */
import { BUILTIN_DETECTORS, OutputGuard, scanText } from '../../packages/policy/src/detect/index.ts';

const PROSE = 'The quick brown fox jumps over the lazy dog while the team reviews the quarterly report in detail. ';
const VALUES = ['jane.doe@acme.io', '+1 415 555 2671', '4111 1111 1111 1111', 'DE89 3704 0044 0532 0130 00', '536-22-1234', '10.20.30.40', '2001:db8::1', 'AKIAIOSFODNN7EXAMPLE'];

function prompt(bytes: number): string {
  let s = '';
  let i = 0;
  while (s.length < bytes) s += PROSE + (i++ % 10 === 0 ? `${VALUES[i % VALUES.length]} ` : '');
  return s.slice(0, bytes);
}

function p50(fn: () => void, runs: number): number {
  for (let i = 0; i < Math.min(50, runs); i++) fn();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)]! * 1000;
}

function readOnce(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h + text.charCodeAt(i)) | 0;
  return h;
}

export function run() {
  const detectors = Object.values(BUILTIN_DETECTORS);
  const lines: string[] = [];
  for (const [label, size, runs] of [['10 KB', 10 * 1024, 2000], ['1 MB', 1 << 20, 30]] as const) {
    // A fresh copy per run: digit groups are remembered for the last text scanned.
    const texts = [prompt(size), `${prompt(size)} `];
    let k = 0;
    const scan = p50(() => void scanText(texts[k++ & 1]!, detectors), runs);
    const base = p50(() => void readOnce(texts[k++ & 1]!), runs);
    const verdict = label === '10 KB' ? ` (target ≤ 50 µs: ${scan <= 50 ? 'met' : 'missed'})` : '';
    lines.push(`scan ${label} prompt, every built-in detector: p50 ${scan.toFixed(1)} µs = ${(scan / base).toFixed(1)}× one read of the text (${base.toFixed(1)} µs)${verdict}`);
  }
  // Streamed restoration: the answer echoes 8 surrogates; deltas of one character.
  const restore = new Map(VALUES.map((v, i) => [`s${i}rrogate${v.length}@x.example`, v] as const));
  const answer = [...restore.keys()].map((s) => `${PROSE}${s} `).join('');
  const firstByte = (guarded: boolean) => p50(() => {
    const g = guarded ? new OutputGuard({ restore, detectors: [], action: () => 'log', marker: () => '' }) : null;
    for (const ch of answer) {
      const out = g === null ? ch : g.push(ch);
      if (out.length > 0) break;
    }
  }, 2000);
  const whole = (guarded: boolean) => p50(() => {
    const g = guarded ? new OutputGuard({ restore, detectors: [], action: () => 'log', marker: () => '' }) : null;
    let out = '';
    for (const ch of answer) out += g === null ? ch : g.push(ch);
    if (g !== null) out += g.end();
  }, 500);
  const [tg, tb] = [firstByte(true), firstByte(false)];
  const [wg, wb] = [whole(true), whole(false)];
  lines.push(`streamed answer with restoration on (8 surrogates, 1-character deltas): time to first handed-on byte ${tg.toFixed(2)} µs vs ${tb.toFixed(2)} µs unguarded (+${(tg - tb).toFixed(2)} µs; at most one surrogate window held back); whole ${answer.length}-character answer ${(wg / wb).toFixed(1)}× unguarded (${wg.toFixed(0)} vs ${wb.toFixed(0)} µs)`);
  return { name: 'policy: DLP scanning and streamed restoration', lines };
}
