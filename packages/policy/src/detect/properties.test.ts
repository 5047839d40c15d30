/** Property tests: 10,000 random strings through every detector; surrogates keep their format and restore exactly. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS, OutputGuard, compileCustom, ibanValid, luhnValid, scanText, surrogateFor, type Detector } from './index.js';

const custom = compileCustom({ id: 'ticket', pattern: '(?:TKT|INC)-[0-9]{4,8}' });
if (!custom.ok) throw new Error('test pattern');
const detectors: Detector[] = [...Object.values(BUILTIN_DETECTORS), custom.detector];

/** Text made of the characters detectors care about, so random strings often come close to a match. */
const pieces = fc.constantFrom(
  'a',
  'Z',
  '0',
  '1',
  '4',
  '9',
  ' ',
  '-',
  '.',
  ':',
  '@',
  '+',
  '(',
  ')',
  '_',
  '/',
  '\n',
  'é',
  '🌦️',
  'sk-',
  'AKIA',
  'ghp_',
  'xoxb-',
  'eyJ',
  '-----BEGIN RSA PRIVATE KEY-----',
  '-----END RSA PRIVATE KEY-----',
  'DE89',
  'GB82',
  '::',
  'TKT-',
  '4111',
  '.com',
  'x@y',
  '192.168.',
  'fe80',
  '555-',
  '+44 ',
);
const noisy = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.array(pieces, { maxLength: 80 }).map((xs) => xs.join('')),
);

describe('every detector on 10,000 random strings', () => {
  it('never throws; spans are in bounds, ordered and disjoint', () => {
    fc.assert(
      fc.property(noisy, (text) => {
        for (const d of detectors) {
          const out: { entity: string; start: number; end: number }[] = [];
          d.scan(text, out);
          let last = 0;
          for (const f of out) {
            expect(f.entity).toBe(d.entity);
            expect(f.start).toBeGreaterThanOrEqual(last);
            expect(f.end).toBeGreaterThan(f.start);
            expect(f.end).toBeLessThanOrEqual(text.length);
            last = f.end;
          }
        }
        const all = scanText(text, detectors);
        for (let i = 1; i < all.length; i++) expect(all[i]!.start).toBeGreaterThanOrEqual(all[i - 1]!.end);
      }),
      { numRuns: 10_000 },
    );
  });

  it('finds a value wherever it is embedded between separators', () => {
    const values: [string, string][] = [
      ['email', 'jane.doe@example.org'],
      ['credit_card', '4111 1111 1111 1111'],
      ['iban', 'DE89370400440532013000'],
      ['us_ssn', '536-22-1234'],
      ['ipv4', '10.20.30.40'],
      ['ipv6', '2001:db8::1'],
      ['phone', '+1 415 555 2671'],
      ['secret', 'AKIAIOSFODNN7EXAMPLE'],
      ['ticket', 'INC-123456'],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...values), fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), ([entity, value], pre, post) => {
        const text = `${pre.replace(/[^a-z ]/g, '')} ${value} ${post.replace(/[^a-z ]/g, '')}`;
        const hits = scanText(text, detectors).filter((f) => text.slice(f.start, f.end) === value);
        expect(hits.map((f) => f.entity)).toEqual([entity]);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('format-preserving surrogates', () => {
  const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
  const cases: [string, string][] = [
    ['email', 'jane.doe@example.org'],
    ['credit_card', '4111 1111 1111 1111'],
    ['credit_card', '378282246310005'],
    ['iban', 'DE89 3704 0044 0532 0130 00'],
    ['iban', 'GB82WEST12345698765432'],
    ['us_ssn', '536-22-1234'],
    ['ipv4', '10.20.30.40'],
    ['ipv6', 'fe80::1'],
    ['phone', '+44 20 7946 0958'],
    ['phone', '(415) 555-2671'],
    ['secret', 'sk-proj-abc123DEF456ghi789JKL0mno'],
    ['secret', 'AKIAIOSFODNN7EXAMPLE'],
    ['ticket', 'INC-123456'],
  ];

  it('are found again as the same entity, pass the checksums, and are pure in the seed', () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), seed, ([entity, value], s) => {
        const sur = surrogateFor(entity, value, s);
        expect(surrogateFor(entity, value, s)).toBe(sur);
        const hits = scanText(` ${sur} `, detectors);
        expect(hits.map((f) => [f.entity, f.end - f.start])).toEqual([[entity, sur.length]]);
        if (entity === 'credit_card') expect(luhnValid(sur)).toBe(true);
        if (entity === 'iban') expect(ibanValid(sur.replace(/ /g, ''))).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });

  it('are restored exactly whatever the chunking, holding back at most the longest surrogate', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...cases), { minLength: 1, maxLength: 4 }),
        seed,
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 5 }),
        fc.array(fc.nat(30), { maxLength: 20 }),
        (values, s, fillers, cuts) => {
          const restore = new Map<string, string>();
          let original = '';
          let model = '';
          values.forEach(([entity, value], i) => {
            const seedI = s.map((b) => (b + i * 31) & 255);
            const sur = surrogateFor(entity, value, seedI);
            if ([...restore.keys()].some((k) => k.includes(sur) || sur.includes(k))) return;
            restore.set(sur, value);
            const filler = (fillers[i] ?? '').replace(/[0-9A-Za-z@.:+-]/g, ' ');
            original += `${filler} ${value} `;
            model += `${filler} ${sur} `;
          });
          const window = Math.max(...[...restore.keys()].map((k) => k.length));
          const guard = new OutputGuard({ restore, detectors: [], action: () => 'log', marker: () => '' });
          let out = '';
          let at = 0;
          for (const c of cuts) {
            const piece = model.slice(at, at + c);
            at += piece.length;
            out += guard.push(piece);
            // Never more held back than the longest surrogate.
            expect(guard.held).toBeLessThan(window);
          }
          out += guard.push(model.slice(at));
          out += guard.end();
          expect(out).toBe(original);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
