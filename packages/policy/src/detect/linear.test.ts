/**
 * No catastrophic backtracking: every detector scans hostile 1 MB inputs (runs of the very
 * characters it keys on, which make a backtracking pattern try every start and every length)
 * and finishes. Linear scans take milliseconds; a quadratic one on 1 MB would take hours, so
 * the bound below only tells the two apart (the cost per request is measured in test/bench).
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS, compileCustom, type Detector, type Finding } from './index.js';

const custom = compileCustom({ id: 'nested', pattern: '(?:a+)+b|[0-9]+[a-z]|(?:x+x+)+y' });
if (!custom.ok) throw new Error('test pattern');
const detectors: Detector[] = [...Object.values(BUILTIN_DETECTORS), custom.detector];

const HOSTILE = [
  'a',
  '1',
  '@',
  'a@',
  'a.',
  '1 ',
  '1-',
  '1.',
  '+1 ',
  ':',
  'a:',
  'f:',
  '1:',
  'sk-',
  'sk-a',
  'eyJ',
  'eyJa.',
  'AKIA',
  'ghp_',
  'xoxb-',
  '-----BEGIN RSA PRIVATE KEY-----',
  '-----BEGIN ',
  'DE89',
  'DE89 ',
  '4111 ',
  '(415) ',
  'a@b.',
  'x@y.com',
  '1.2.3.4.',
  'x',
];

describe('linear time on hostile 1 MB inputs', () => {
  it.each(detectors.map((d) => [d.entity, d] as const))('%s', (_e, d) => {
    const slow: string[] = [];
    for (const unit of HOSTILE) {
      const text = unit.repeat(Math.ceil((1 << 20) / unit.length));
      const out: Finding[] = [];
      const t0 = performance.now();
      d.scan(text, out);
      const ms = performance.now() - t0;
      if (ms > 3_000) slow.push(`${JSON.stringify(unit)}: ${ms.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  });
});
