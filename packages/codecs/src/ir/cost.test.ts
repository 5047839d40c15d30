import { describe, expect, it } from 'vitest';
import { codecs } from '../registry.js';
import { choiceCount } from './cost.js';

describe('cost-bearing fields', () => {
  it('every codec reports its format’s cost-bearing fields (each was audited)', () => {
    for (const codec of Object.values(codecs)) expect(codec.costFields, codec.format).toBeTypeOf('function');
  });

  it('reads a count of choices as lenient upstream parsers would, and nothing else', () => {
    expect([1, 7, '2', ' 3 '].map(choiceCount)).toEqual([1, 7, 2, 3]);
    expect([0, -1, 1.5, '1e3', 'x', null, {}, 2 ** 60].map(choiceCount)).toEqual(Array(8).fill(undefined));
  });
});
