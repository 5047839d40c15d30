/** The public entry of `@tollgate/core`: internal helpers stay private, file inputs are typed. */
import { describe, expect, it } from 'vitest';
import * as core from './index.js';
import type { GatewayOptions, PolicyFileInput, RegistryFileInput } from './index.js';

describe('@tollgate/core entry', () => {
  it('does not export internal helpers', () => {
    for (const name of ['sha256', 'sha256Hex', 'canonicalJson', 'utf8Length']) expect(Object.keys(core)).not.toContain(name);
  });

  it('types `registry` and `policy` as the objects their files parse to', () => {
    const registry: RegistryFileInput = {
      // @ts-expect-error a family is "chat" or "responses"
      wire_formats: { openai_chat: { family: 'chit' } },
      entry_routes: [],
      providers: {},
      operations: [],
      models: {},
    };
    // @ts-expect-error enforcement is "enforce" or "shadow"
    const policy: PolicyFileInput = { enforcement: 'maybe' };
    const options: Pick<GatewayOptions, 'registry' | 'policy'> = { registry, policy };
    // The mistakes above are type errors; at run time the gateway refuses them too.
    expect(() => core.createGateway({ ...options, identity: {} })).toThrow(core.GatewayConfigError);
  });
});
