import type { SecretsOption } from '@tollgate/core';

const missing = (name: string): Error => new Error(`The secret ${name} is not set.`);

/**
 * Provider secrets from a Worker's `env` (its secrets and variables): `env[name]` when it is
 * a non-empty string. Bindings that are not strings (KV namespaces, Durable Objects) never are.
 */
export function envSecrets(env: object): SecretsOption {
  const table = env as Record<string, unknown>;
  return (name: string) => {
    const value = table[name];
    if (typeof value !== 'string' || value === '') throw missing(name);
    return value;
  };
}

interface DenoEnv {
  get(name: string): string | undefined;
}

/**
 * The default when no `secrets` option is given: the process environment where the runtime has
 * one (Node, Bun, Next.js, Deno 2, Workers with Node compatibility) — core's own default —
 * else `Deno.env` — else none (every secret is missing: pass `secrets`).
 */
export function defaultSecrets(): SecretsOption | undefined {
  const g = globalThis as { process?: { env?: object }; Deno?: { env?: DenoEnv } };
  if (g.process?.env !== undefined) return undefined;
  const denoEnv = g.Deno?.env;
  if (denoEnv !== undefined) {
    return (name: string) => {
      const value = denoEnv.get(name);
      if (value === undefined || value === '') throw missing(name);
      return value;
    };
  }
  return undefined;
}
