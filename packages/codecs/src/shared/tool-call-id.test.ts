import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseCallId, foldSignature, isSyntheticCallId, syntheticCallId, unfoldSignature } from './tool-call-id.js';

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

describe('thought signatures folded into tool-call ids', () => {
  it('a canonical base64 signature folds into a base64url tail and comes back exactly', () => {
    const sig = 'CpYE+/+/AQI=';
    const id = foldSignature('call_abc', sig);
    expect(id).toBe('call_abc__ts_CpYE-_-_AQI');
    expect(id).toMatch(ANTHROPIC_ID);
    expect(unfoldSignature(id)).toEqual({ id: 'call_abc', thoughtSignature: sig });
    expect(baseCallId(id)).toBe('call_abc');
  });

  it('any other signature text folds through UTF-8 bytes and comes back exactly', () => {
    for (const sig of ['EpwI-url_safe-form=', 'not base64 at all!', 'é🚀', 'abc']) {
      const id = foldSignature('toolu_1', sig);
      expect(id).toMatch(ANTHROPIC_ID);
      expect(id.startsWith('toolu_1__tx_')).toBe(true);
      expect(unfoldSignature(id)).toEqual({ id: 'toolu_1', thoughtSignature: sig });
    }
  });

  it('ids without a signature are left alone, both ways', () => {
    expect(foldSignature('call_1', undefined)).toBe('call_1');
    expect(foldSignature('call_1', '')).toBe('call_1');
    for (const id of ['call_1', 'toolu_01A', 'gcall_r_0', '__ts_', 'x__ts_', 'x__ts_%%', 'x__ts_A']) {
      expect(unfoldSignature(id)).toEqual({ id });
    }
  });

  it('property: fold then unfold is the identity for any base id without a marker and any signature', () => {
    const base = fc.stringMatching(/^[A-Za-z0-9-]{1,40}$/).map((s) => `call_${s}`);
    fc.assert(
      fc.property(base, fc.string({ minLength: 1 }), (id, sig) => {
        const folded = foldSignature(id, sig);
        expect(folded).toMatch(ANTHROPIC_ID);
        expect(unfoldSignature(folded)).toEqual({ id, thoughtSignature: sig });
      }),
    );
    fc.assert(
      fc.property(base, fc.uint8Array({ minLength: 1, maxLength: 600 }), (id, raw) => {
        const sig = btoa(String.fromCharCode(...raw));
        expect(unfoldSignature(foldSignature(id, sig))).toEqual({ id, thoughtSignature: sig });
      }),
    );
  });

  it('made-up ids are recognisable and never hold a fold marker', () => {
    expect(syntheticCallId(2, 'resp__ts_x')).toBe('gcall_resp--ts-x_2');
    expect(syntheticCallId(0)).toBe('gcall_0');
    expect(isSyntheticCallId('gcall_0')).toBe(true);
    expect(isSyntheticCallId('call_0')).toBe(false);
  });
});
