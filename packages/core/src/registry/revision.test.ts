import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../util/sha256.js';
import { baseRegistry } from './__tests__/fixtures.js';
import { loadRegistry } from './load.js';
import { registryRevision } from './revision.js';

describe('registryRevision', () => {
  it('is sha256 of the canonical JSON', () => {
    expect(registryRevision({ b: [1, 'x'], a: true })).toBe(`sha256:${sha256Hex('{"a":true,"b":[1,"x"]}')}`);
    expect(registryRevision(baseRegistry())).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('ignores key order and source syntax', () => {
    const yaml = 'models: {m: {brand: x}}\nwire_formats: {openai_chat: {family: chat}}\n';
    const json = '{"wire_formats":{"openai_chat":{"family":"chat"}},"models":{"m":{"brand":"x"}}}';
    expect(registryRevision(parse(yaml))).toBe(registryRevision(JSON.parse(json)));
  });

  it('changes with any change, a price say', () => {
    const raw = baseRegistry();
    const before = registryRevision(raw);
    raw.models['gpt-5'].deployments[0].pricing.output = 11;
    expect(registryRevision(raw)).not.toBe(before);
  });

  it('of a loaded registry is that of its source', () => {
    const raw = baseRegistry();
    const result = loadRegistry(raw);
    if (!result.ok) throw new Error('invalid');
    expect(result.registry.revision).toBe(registryRevision(raw));
    expect(registryRevision(result.registry)).toBe(registryRevision(raw));
  });
});
