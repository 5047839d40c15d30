import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { bytes, decodeChunks, reencodeChunks, sliceAt } from './__tests__/harness.js';

const files = fixtureFiles('gemini', '.sse');

describe('gemini_generate_content streams are independent of how the bytes are sliced', () => {
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

  it('cuts between CR and LF of a separator and inside multi-byte characters', () => {
    const text = fixtureText('gemini/stream-thought-parts.sse');
    const data = bytes(text);
    const whole = decodeChunks([data]);
    const separator = bytes(text.slice(0, text.indexOf('\r\n\r\n'))).length;
    for (const cut of [separator + 1, separator + 2, separator + 3]) expect(decodeChunks(sliceAt(data, [cut]))).toEqual(whole);

    const unicode = 'data: {"candidates":[{"content":{"parts":[{"text":"Pelé 🚀 ok"}]},"finishReason":"STOP"}]}\r\n\r\n';
    const u = bytes(unicode);
    const expected = decodeChunks([u]);
    expect(expected.find((e) => e.type === 'text_delta')).toMatchObject({ text: 'Pelé 🚀 ok' });
    for (let cut = 1; cut < u.length; cut++) expect(decodeChunks(sliceAt(u, [cut]))).toEqual(expected);
  });
});
