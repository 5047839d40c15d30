/**
 * The parts of jose the JWT path uses. The verifier loads this module with a dynamic
 * `import('./jose.js')` on the first token, so a deployment without `jwt` entries never
 * evaluates jose, and a bundler that splits dynamic imports moves it out of the main chunk.
 * Importing jose through this module (not `import('jose')` itself) keeps it tree-shakable:
 * a dynamic import of the package would pull in all of jose.
 */
export { createLocalJWKSet, createRemoteJWKSet, customFetch, decodeJwt, errors, jwtVerify } from 'jose';
