import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { bytes, decodeChunks, reencodeChunks, sliceAt } from './__tests__/harness.js';

const files = fixtureFiles('openai-responses', '.sse');

describe('openai_responses streams are independent of how the bytes are sliced', () => {
  it.each(files)('%s: random slicing gives the same events and the same re-encoded output', (file) => {
    const data = bytes(fixtureText(file));
    const events = decodeChunks([data]);
    const output = reencodeChunks([data]);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: data.length }), { maxLength: 40 }), (cuts) => {
        const chunks = sliceAt(data, cuts);
        expect(decodeChunks(chunks)).toEqual(events);
        expect(reencodeChunks(chunks)).toBe(output);
      }),
      { numRuns: file.includes('reasoning-summary') ? 25 : 150 },
    );
  });

  it.each(files)('%s: one byte at a time gives the same events and output', (file) => {
    const data = bytes(fixtureText(file));
    const oneByOne = Array.from({ length: data.length }, (_, i) => data.subarray(i, i + 1));
    expect(decodeChunks(oneByOne)).toEqual(decodeChunks([data]));
    expect(reencodeChunks(oneByOne)).toBe(reencodeChunks([data]));
  });

  it('cuts inside multi-byte UTF-8 characters (’ and —) change nothing', () => {
    const text = fixtureText('openai-responses/stream-reasoning-summary-text.sse');
    const data = bytes(text);
    const whole = decodeChunks([data]);
    for (const ch of ['’', '—', '“']) {
      const at = bytes(text.slice(0, text.indexOf(ch))).length;
      expect(data[at]).toBeGreaterThanOrEqual(0xe0); // a three-byte character
      for (const cut of [at + 1, at + 2]) expect(decodeChunks(sliceAt(data, [cut]))).toEqual(whole);
    }
  });
});
