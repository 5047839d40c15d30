import { describe, expect, it } from 'vitest';
import { convertRequest } from '../convert.js';
import type { ConversionWarning } from '../ir/warning.js';
import { fitsGeminiSubset, fromGeminiSchema, toGeminiSchema } from './json-schema.js';

function convert(schema: unknown) {
  const warnings: ConversionWarning[] = [];
  const out = toGeminiSchema(schema, 'tools[0].parameters', warnings);
  return { out, warnings: warnings.map((w) => [w.code, w.path]) };
}

describe('JSON Schema → the Gemini schema subset', () => {
  it('an OpenAI strict schema: additionalProperties and $schema dropped, one warning per keyword path', () => {
    const { out, warnings } = convert({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City', examples: ['Paris'] },
        unit: { type: ['string', 'null'], enum: ['c', 'f', null], default: 'c' },
        tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: false } },
      },
      required: ['city', 'unit', 'tags'],
      additionalProperties: false,
      strict: true,
    });
    expect(out).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City' },
        unit: { type: 'string', enum: ['c', 'f'], nullable: true },
        tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
      },
      required: ['city', 'unit', 'tags'],
    });
    expect(warnings).toEqual([
      ['dropped_field', 'tools[0].parameters.$schema'],
      ['dropped_field', 'tools[0].parameters.properties.city.examples'],
      ['dropped_field', 'tools[0].parameters.properties.unit.default'],
      ['dropped_field', 'tools[0].parameters.properties.tags.items.additionalProperties'],
      ['dropped_field', 'tools[0].parameters.additionalProperties'],
      ['dropped_field', 'tools[0].parameters.strict'],
    ]);
  });

  it('inlines local $refs ($defs and definitions), keeping siblings', () => {
    const { out, warnings } = convert({
      type: 'object',
      properties: { home: { $ref: '#/$defs/Address', description: 'Home' }, work: { $ref: '#/definitions/Address' } },
      $defs: { Address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] } },
      definitions: { Address: { type: 'object', properties: { street: { type: 'string' } } } },
    });
    expect(out['properties']).toEqual({
      home: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'], description: 'Home' },
      work: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
    });
    expect(warnings).toEqual([]);
  });

  it('drops recursive and remote $refs with a warning', () => {
    const { out, warnings } = convert({
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' }, remote: { $ref: 'https://example.com/schema.json', description: 'kept' } },
      $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } } } },
    });
    expect(out['properties']).toEqual({ node: { type: 'object', properties: { child: {} } }, remote: { description: 'kept' } });
    expect(warnings).toEqual([
      ['dropped_field', 'tools[0].parameters.properties.node.properties.child.$ref'],
      ['dropped_field', 'tools[0].parameters.properties.remote.$ref'],
    ]);
  });

  it('unions: nullable anyOf collapses, oneOf becomes anyOf, type arrays become anyOf', () => {
    expect(convert({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({ out: { type: 'string', nullable: true }, warnings: [] });
    expect(convert({ oneOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual({
      out: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      warnings: [['lossy_conversion', 'tools[0].parameters.oneOf']],
    });
    expect(convert({ type: ['string', 'number', 'null'] }).out).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }], nullable: true });
    expect(convert({ const: 'x' }).out).toEqual({ type: 'string', enum: ['x'] });
    expect(convert({ type: 'integer', enum: [1, 2] }).warnings).toEqual([['dropped_field', 'tools[0].parameters.enum']]);
  });

  it('formats: only the ones Gemini knows per type', () => {
    expect(convert({ type: 'string', format: 'date-time' })).toEqual({ out: { type: 'string', format: 'date-time' }, warnings: [] });
    expect(convert({ type: 'integer', format: 'int64' }).out).toEqual({ type: 'integer', format: 'int64' });
    expect(convert({ type: 'string', format: 'email', minLength: 3 })).toEqual({
      out: { type: 'string', minLength: 3 },
      warnings: [['dropped_field', 'tools[0].parameters.format']],
    });
  });

  it('allOf of objects merges into one object', () => {
    const { out, warnings } = convert({
      allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'number' } } }],
    });
    expect(out).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] });
    expect(warnings).toEqual([['lossy_conversion', 'tools[0].parameters.allOf']]);
  });

  it('fitsGeminiSubset: true exactly when nothing would be lost', () => {
    expect(fitsGeminiSubset({ type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'] })).toBe(true);
    expect(fitsGeminiSubset({ type: 'object', additionalProperties: false })).toBe(false);
  });

  it('Gemini schemas decode to JSON Schema (lower-case types, nullable as a null type)', () => {
    expect(
      fromGeminiSchema({
        type: 'OBJECT',
        properties: { a: { type: 'STRING', nullable: true, format: 'enum', enum: ['x'] }, b: { type: 'ARRAY', items: { type: 'INTEGER' } } },
        required: ['a'],
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: ['string', 'null'], enum: ['x'] }, b: { type: 'array', items: { type: 'integer' } } },
      required: ['a'],
    });
  });

  it('a tool from an OpenAI client reaches Gemini in the subset, with the warnings reported by convertRequest', () => {
    const result = convertRequest(
      {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              strict: true,
              parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
            },
          },
        ],
      },
      'openai_chat',
      'gemini_generate_content',
    );
    expect(result.body['tools']).toEqual([
      { functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] },
    ]);
    expect(result.warnings.map((w) => [w.code, w.path])).toEqual([
      ['dropped_field', 'tools[0].parameters.additionalProperties'],
      ['dropped_field', 'tools[0].strict'],
    ]);
  });

  it('response_format json_schema: the subset when it fits, else responseJsonSchema verbatim', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    const strict = convertRequest(
      { model: 'x', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_schema', json_schema: { name: 'r', schema, strict: true } } },
      'openai_chat',
      'gemini_generate_content',
    );
    expect(strict.body['generationConfig']).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
    const simple = convertRequest(
      {
        model: 'x',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object', properties: {} } } },
      },
      'openai_chat',
      'gemini_generate_content',
    );
    expect(simple.body['generationConfig']).toEqual({ responseMimeType: 'application/json', responseSchema: { type: 'object', properties: {} } });
  });
});
