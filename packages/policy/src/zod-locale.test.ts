import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { englishMessage } from './zod-locale.js';

const english = en().localeError;

/** Every issue the schemas below raise, with zod's own English locale and with ours. */
function messages(schema: z.ZodMiniType, input: unknown, error: (issue: z.core.$ZodRawIssue) => string): string[] {
  const result = z.safeParse(schema, input, { error });
  return result.success ? [] : result.error.issues.map((i) => i.message);
}

class Point {
  x = 1;
}

const cases: Array<[string, z.ZodMiniType, unknown]> = [
  ['invalid_type, string', z.string(), 5],
  ['invalid_type, NaN', z.number(), Number.NaN],
  ['invalid_type, Infinity', z.int(), Number.POSITIVE_INFINITY],
  ['invalid_type, null', z.boolean(), null],
  ['invalid_type, array', z.strictObject({}), []],
  ['invalid_type, class', z.string(), new Point()],
  ['invalid_type, object', z.string(), {}],
  ['invalid_type, bigint', z.string(), 5n],
  ['invalid_value, one', z.literal('a'), 'b'],
  ['invalid_value, many', z.enum(['a', 'b']), 'c'],
  ['invalid_value, numbers', z.literal([1, 2]), 3],
  ['too_big, string', z.string().check(z.maxLength(2)), 'abc'],
  ['too_big, array', z.array(z.string()).check(z.maxLength(1)), ['a', 'b']],
  ['too_big, number inclusive', z.number().check(z.lte(3)), 4],
  ['too_big, number', z.number().check(z.lt(3)), 4],
  ['too_big, exact', z.string().check(z.length(2)), 'abc'],
  ['too_small, string', z.string().check(z.minLength(2)), 'a'],
  ['too_small, array', z.array(z.string()).check(z.minLength(2)), []],
  ['too_small, number', z.number().check(z.positive()), 0],
  ['too_small, inclusive', z.number().check(z.gte(3)), 1],
  ['invalid_format, regex', z.string().check(z.regex(/^a+$/)), 'b'],
  ['invalid_format, url', z.url(), 'not a url'],
  ['invalid_format, starts_with', z.string().check(z.startsWith('x')), 'y'],
  ['invalid_format, ends_with', z.string().check(z.endsWith('x')), 'y'],
  ['invalid_format, includes', z.string().check(z.includes('x')), 'y'],
  ['not_multiple_of', z.number().check(z.multipleOf(3)), 4],
  ['unrecognized_keys, one', z.strictObject({ a: z.optional(z.string()) }), { b: 1 }],
  ['unrecognized_keys, many', z.strictObject({}), { b: 1, c: 2 }],
  ['invalid_key', z.record(z.enum(['a']), z.string()), { b: 'x' }],
  ['invalid_union', z.union([z.string(), z.number()]), true],
  [
    'invalid_union, discriminated',
    z.discriminatedUnion('type', [z.strictObject({ type: z.literal('a') }), z.strictObject({ type: z.literal('b') })]),
    { type: 'c' },
  ],
  ['invalid_element', z.map(z.string(), z.number()), new Map([['a', 'x']])],
  ['custom', z.string().check(z.refine(() => false)), 'a'],
];

describe('englishMessage', () => {
  it.each(cases)('words %s as zod’s English locale does', (_, schema, input) => {
    const theirs = messages(schema, input, (issue) => english(issue) as string);
    expect(theirs.length).toBeGreaterThan(0);
    expect(messages(schema, input, englishMessage)).toEqual(theirs);
  });

  it('names formats the schemas do not use by their zod code', () => {
    expect(messages(z.email(), 'x', englishMessage)).toEqual(['Invalid email']);
  });
});
