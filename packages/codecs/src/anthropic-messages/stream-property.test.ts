import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { bytes, decodeChunks, reencodeChunks, sliceAt } from './__tests__/harness.js';

const files = fixtureFiles('anthropic-messages', '.sse');

describe('anthropic_messages streams are independent of how the bytes are sliced', () => {
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
      { numRuns: 150 },
    );
  });

  it.each(files)('%s: one byte at a time gives the same events and output', (file) => {
    const data = bytes(fixtureText(file));
    const oneByOne = Array.from({ length: data.length }, (_, i) => data.subarray(i, i + 1));
    expect(decodeChunks(oneByOne)).toEqual(decodeChunks([data]));
    expect(reencodeChunks(oneByOne)).toBe(reencodeChunks([data]));
  });

  it('cuts inside a multi-byte UTF-8 character and inside whitespace-padded data lines', () => {
    const text = fixtureText('anthropic-messages/stream-thinking.sse');
    const data = bytes(text);
    const accent = bytes(text.slice(0, text.indexOf('é'))).length; // 'é' is two bytes: cut between them
    const padding = bytes(text.slice(0, text.indexOf('"}}         }'))).length + 6; // inside the trailing spaces
    expect(data[accent]).toBe(0xc3);
    const whole = decodeChunks([data]);
    for (const cut of [accent + 1, padding, padding + 1]) {
      expect(decodeChunks(sliceAt(data, [cut]))).toEqual(whole);
    }
    const thinking = whole.filter((e) => e.type === 'reasoning_delta').map((e) => (e.type === 'reasoning_delta' ? e.text : '')).join('');
    expect(thinking).toContain('Pelé');
  });
});
