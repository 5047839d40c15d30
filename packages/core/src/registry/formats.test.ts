import { describe, expect, it } from 'vitest';
import { ISSUER_OF_FORMAT, WIRE_FORMATS, codecs, countTokensCodecs, embeddingsCodecs } from '@tollgate/codecs';
import { conversionPlan, DEFAULT_ENTRY_ROUTES, DEFAULT_WIRE_FORMATS, FORMAT_ISSUER, KIND_FORMATS, KNOWN_FORMATS } from './formats.js';
import { loadRegistry } from './load.js';

describe('format data', () => {
  it("matches codecs' formats, issuers and families", () => {
    expect(KNOWN_FORMATS).toEqual(WIRE_FORMATS);
    expect(FORMAT_ISSUER).toEqual(ISSUER_OF_FORMAT);
    for (const [format, codec] of Object.entries(codecs)) {
      expect(DEFAULT_WIRE_FORMATS[format as keyof typeof DEFAULT_WIRE_FORMATS].family).toBe(codec.family);
    }
  });

  it('raw is same issuer and same family; everything else that differs translates', () => {
    const family = (f: keyof typeof DEFAULT_WIRE_FORMATS) => DEFAULT_WIRE_FORMATS[f].family;
    expect(conversionPlan('anthropic_messages', 'anthropic_vertex', family)).toBe('raw');
    expect(conversionPlan('anthropic_vertex', 'anthropic_messages', family)).toBe('raw');
    expect(conversionPlan('openai_chat', 'openai_responses', family)).toBe('translate');
    expect(conversionPlan('openai_chat', 'anthropic_messages', family)).toBe('translate');
    expect(conversionPlan('gemini_generate_content', 'gemini_generate_content', family)).toBe('identity');
    // Bedrock carries Claude's signatures (same issuer) in its own grammar: never a raw plan.
    expect(conversionPlan('anthropic_messages', 'bedrock_converse', family)).toBe('translate');
    expect(conversionPlan('bedrock_converse', 'anthropic_vertex', family)).toBe('translate');
  });

  it('KIND_FORMATS names exactly the formats whose codec counts tokens or embeds', () => {
    expect([...KIND_FORMATS.count_tokens].sort()).toEqual(Object.keys(countTokensCodecs).sort());
    expect([...KIND_FORMATS.embed].sort()).toEqual(Object.keys(embeddingsCodecs).sort());
  });

  it('the defaults can be spread into a registry', () => {
    const result = loadRegistry({
      wire_formats: { ...DEFAULT_WIRE_FORMATS },
      entry_routes: [...DEFAULT_ENTRY_ROUTES],
      providers: {},
      operations: [],
      models: {},
    });
    expect(result.ok).toBe(true);
  });
});
