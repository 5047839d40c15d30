import { describe, expect, it } from 'vitest';
import { closestName, didYouMean } from './suggest.js';

describe('closestName', () => {
  it('finds the intended name behind a typo', () => {
    expect(closestName('memroy', ['memory'])).toBe('memory');
    expect(closestName('claude-sonet', ['claude-sonnet', 'claude-opus', 'gpt-4o'])).toBe('claude-sonnet');
    expect(closestName('reservaton_ttl_s', ['url', 'key_prefix', 'reservation_ttl_s'])).toBe('reservation_ttl_s');
    expect(closestName('Enforcement', ['enforcement', 'timezone'])).toBe('enforcement');
    expect(closestName('tpm', ['rpm', 'tpm_'])).toBeUndefined(); // two equally close: no guess
  });

  it('does not guess when nothing is close', () => {
    expect(closestName('kafka', ['stdout', 'none'])).toBeUndefined();
    expect(closestName('surprise', ['listen', 'registry', 'policy', 'identity', 'store', 'usage'])).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });

  it('renders a hint, or nothing', () => {
    expect(didYouMean('stdot', ['stdout', 'none'])).toBe(' (did you mean "stdout"?)');
    expect(didYouMean('zzz', ['stdout'])).toBe('');
  });
});
