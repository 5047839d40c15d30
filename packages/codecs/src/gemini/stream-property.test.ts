import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { itIsIndependentOfSlicing } from '../__tests__/harness.js';
import { bytes, decodeChunks, harness, sliceAt } from './__tests__/harness.js';

const files = fixtureFiles('gemini', '.sse');

describe('gemini_generate_content streams are independent of how the bytes are sliced', () => {
  itIsIndependentOfSlicing(harness, files);

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
