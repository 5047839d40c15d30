import { describe, expect, it } from 'vitest';
import type { ConversionWarning } from '@tollgate/codecs/base';
import { lossyWarnings, warningsHeader } from './context.js';

const w = (code: ConversionWarning['code'], path?: string): ConversionWarning => ({ code, message: 'm', ...(path === undefined ? {} : { path }) });

describe('x-tollgate-warnings', () => {
  it('the count, then each code and path', () => {
    expect(warningsHeader([])).toBeUndefined();
    expect(warningsHeader([w('signature_dropped', 'messages[1].content[0].signature'), w('dropped_field', 'store'), w('lossy_conversion')])).toBe(
      '3; signature_dropped messages[1].content[0].signature, dropped_field store, lossy_conversion',
    );
  });

  it('printable ASCII only, at most 1 KiB, the count always whole', () => {
    expect(warningsHeader([w('dropped_field', 'tools[0].名前')])).toBe('1; dropped_field tools[0].??');
    const many = Array.from({ length: 200 }, (_, i) => w('dropped_field', `messages[${i}].content[0].cacheControl`));
    const header = warningsHeader(many)!;
    expect(header.length).toBeLessThanOrEqual(1024 + 3);
    expect(header.startsWith('200; ')).toBe(true);
    expect(header.endsWith(', ...')).toBe(true);
    expect(() => new Headers({ 'x-tollgate-warnings': header })).not.toThrow();
  });

  it('an unclassified field is not a drop (it has its own header and count)', () => {
    expect(lossyWarnings([w('unclassified_field', 'x'), w('dropped_field', 'y')]).map((x) => x.path)).toEqual(['y']);
  });
});
