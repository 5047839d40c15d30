export { createIdentityResolver } from './resolver.js';
export type { AuthMethod, AuthResult, IdentityLookup, IdentityOptions, IdentityResolver, IdentityResolverOptions } from './resolver.js';
export { createVirtualKey, hashVirtualKey, isVirtualKeyShape, VIRTUAL_KEY_PREFIX } from './virtual-key.js';
export { extractCredential, CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAM } from './credentials.js';
export type { CredentialResult, CredentialSource } from './credentials.js';
export { isJwtShape } from './jwt-shape.js';
export type { JwtEngine, JwtOutcome, JwtVerifier } from './jwt.js';
export type { FetchLike, JwksOptions } from './jwks.js';
// The documented schema (for JSON Schemas of files that embed the identity section); validation
// uses its runtime copy, which carries no descriptions.
export { IdentityConfigSchema } from './schema.js';
export { parseIdentityConfig, JWT_ALGORITHMS, DEFAULT_JWT_ALGORITHMS } from './runtime-schema.js';
export type { IdentityConfig, IdentityConfigInput, JwtAlgorithm } from './schema.js';
export { identitySources } from './sources.js';
