import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { itIsIndependentOfSlicing } from '../__tests__/harness.js';
import { bytes, decodeChunks, harness, sliceAt } from './__tests__/harness.js';

const files = fixtureFiles('anthropic-messages', '.sse');

describe('anthropic_messages streams are independent of how the bytes are sliced', () => {
  itIsIndependentOfSlicing(harness, files);

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
    const thinking = whole
      .filter((e) => e.type === 'reasoning_delta')
      .map((e) => (e.type === 'reasoning_delta' ? e.text : ''))
      .join('');
    expect(thinking).toContain('Pelé');
  });
});
