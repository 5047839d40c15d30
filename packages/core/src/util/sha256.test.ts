import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256, sha256Hex } from './sha256.js';

const nodeSha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
    [
      'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
    ],
  ])('NIST vector %j', (input, hex) => {
    expect(sha256Hex(input)).toBe(hex);
  });

  it('one million "a"', () => {
    expect(sha256Hex('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('hashes strings as UTF-8', () => {
    expect(sha256Hex('héllo ✓ 🚀')).toBe(nodeSha('héllo ✓ 🚀'));
  });

  it('matches node:crypto at every length around the block boundaries', () => {
    for (let len = 0; len <= 200; len++) {
      const data = randomBytes(len);
      expect(sha256Hex(new Uint8Array(data))).toBe(nodeSha(data));
    }
  });

  it('matches node:crypto on random input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.string(), (bytes, text) => {
        expect(sha256Hex(bytes)).toBe(nodeSha(bytes));
        expect(sha256Hex(text)).toBe(nodeSha(text));
      }),
    );
  });

  it('hashes a view into a larger buffer by its own bytes', () => {
    const big = new Uint8Array(randomBytes(300));
    const view = big.subarray(7, 7 + 130);
    expect(sha256Hex(view)).toBe(nodeSha(Buffer.from(view)));
  });

  it('returns 32 bytes', () => {
    expect(sha256('x')).toHaveLength(32);
  });
});
