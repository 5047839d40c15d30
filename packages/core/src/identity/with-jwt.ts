import { jwtEngine } from './jwt.js';
import { createIdentityResolver as createResolver, type IdentityOptions, type IdentityResolver, type IdentityResolverOptions } from './resolver.js';

/**
 * `createIdentityResolver` of `@tollgate/core`: validates the identity section (throws listing
 * every violation) and returns the authenticator, verifying `jwt` entries with `jwtEngine`
 * (jose) unless `options.jwtEngine` names another. The one of `@tollgate/core/minimal` needs
 * the engine passed.
 */
export function createIdentityResolver(identity: IdentityOptions, options: IdentityResolverOptions = {}): IdentityResolver {
  return createResolver(identity, { ...options, jwtEngine: options.jwtEngine ?? jwtEngine });
}
