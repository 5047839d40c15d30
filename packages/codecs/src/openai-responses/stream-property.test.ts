import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { itIsIndependentOfSlicing } from '../__tests__/harness.js';
import { bytes, decodeChunks, harness, sliceAt } from './__tests__/harness.js';

const files = fixtureFiles('openai-responses', '.sse');

describe('openai_responses streams are independent of how the bytes are sliced', () => {
  itIsIndependentOfSlicing(harness, files, (file) => (file.includes('reasoning-summary') ? 25 : 150));

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
