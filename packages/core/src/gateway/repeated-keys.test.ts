import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from './body.js';
import { repeatedKey } from './repeated-keys.js';

const check = (text: string) => repeatedKey(text, JSON.parse(text));

describe('keys given twice in one object', () => {
  it('names the first repeated key by its path, wherever it is', () => {
    expect(check('{"max_tokens": 10, "model": "m", "max_tokens": 100000}')).toBe('max_tokens');
    expect(check('{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b","content":"c"}]}')).toBe('messages[1].content');
    expect(check('{"generationConfig":{"maxOutputTokens":1,"maxOutputTokens":2}}')).toBe('generationConfig.maxOutputTokens');
    // The same key spelled with an escape is the same key.
    expect(check('{"model":"cheap","mod\\u0065l":"dear"}')).toBe('model');
  });

  it('is not fooled by quotes, colons and braces inside strings', () => {
    expect(check('{"a":"\\"b\\": 1, \\"a\\": 2","b":{"c":"}{\\\\"},"c":["x","y"]}')).toBeNull();
    expect(check('{"a":"\\\\","a":1}')).toBe('a');
    expect(check('[{"a":1},{"a":2}]')).toBeNull();
  });

  it('finds exactly the repeats a walk of the structure finds, in document order, on random bodies', () => {
    type Tree = { obj: Array<[string, Tree]> } | { arr: Tree[] } | { leaf: unknown };
    const key = fc.constantFrom('a', 'b', '"', '\\', 'a:b', 'é', '{x}');
    const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string(), fc.integer(), fc.constant(null)).map((leaf) => ({ leaf })),
        fc.array(fc.tuple(key, tie('tree')), { maxLength: 4 }).map((obj) => ({ obj })),
        fc.array(tie('tree'), { maxLength: 3 }).map((arr) => ({ arr })),
      ),
    }));
    const text = (t: Tree): string =>
      'leaf' in t
        ? JSON.stringify(t.leaf)
        : 'arr' in t
          ? `[${t.arr.map(text).join(', ')}]`
          : `{${t.obj.map(([k, v]) => `${JSON.stringify(k)} : ${text(v)}`).join(',')}}`;
    const firstRepeat = (t: Tree, path: string): string | null => {
      if ('leaf' in t) return null;
      if ('arr' in t) {
        for (const [i, item] of t.arr.entries()) {
          const found = firstRepeat(item, `${path}[${i}]`);
          if (found !== null) return found;
        }
        return null;
      }
      const seen = new Set<string>();
      for (const [k, v] of t.obj) {
        const at = path === '' ? k : `${path}.${k}`;
        if (seen.has(k)) return at;
        seen.add(k);
        const found = firstRepeat(v, at);
        if (found !== null) return found;
      }
      return null;
    };
    fc.assert(
      fc.property(tree, (t) => {
        expect(check(text(t))).toBe(firstRepeat(t, ''));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses such a body with a 400 naming the key', () => {
    expect(() => parseJsonBody(new TextEncoder().encode('{"model":"m","max_tokens":1,"max_tokens":9}'))).toThrow(/'max_tokens' more than once/);
    expect(parseJsonBody(new TextEncoder().encode('{"model":"m","max_tokens":1}'))).toEqual({ model: 'm', max_tokens: 1 });
  });
});
