import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, createVirtualKey, hashBytes, hashVirtualKey, isKeyHash, isVirtualKeyShape } from './virtual-key.js';

describe('identity: virtual keys', () => {
  it('creates tg_ keys with ≥ 32 URL-safe random characters and their sha256 hash', async () => {
    const a = await createVirtualKey();
    const b = await createVirtualKey();
    expect(a.key).toMatch(/^tg_[A-Za-z0-9_-]{32,}$/);
    expect(a.key).not.toBe(b.key);
    expect(isVirtualKeyShape(a.key)).toBe(true);
    expect(isKeyHash(a.hash)).toBe(true);
    expect(a.hash).toBe('sha256:' + createHash('sha256').update(a.key).digest('hex'));
    expect(await hashVirtualKey(a.key)).toBe(a.hash);
  });

  it('rejects other shapes', () => {
    expect(isVirtualKeyShape('tg_short')).toBe(false);
    expect(isVirtualKeyShape('sk-' + 'a'.repeat(40))).toBe(false);
    expect(isVirtualKeyShape('tg_' + 'a'.repeat(31) + '!')).toBe(false);
  });

  it('compares bytes without regard to where they differ', () => {
    const h = hashBytes('sha256:' + 'ab'.repeat(32));
    expect(h).toHaveLength(32);
    expect(constantTimeEqual(h, h.slice())).toBe(true);
    const first = h.slice();
    first[0] = 0;
    const last = h.slice();
    last[31] = 0;
    expect(constantTimeEqual(h, first)).toBe(false);
    expect(constantTimeEqual(h, last)).toBe(false);
    expect(constantTimeEqual(h, h.slice(0, 31))).toBe(false);
  });
});
