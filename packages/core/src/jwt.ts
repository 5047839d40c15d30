/**
 * `@tollgate/core/jwt`: JWT verification (jose, loaded on the first token) for the `jwt`
 * entries of the identity section, for `createGateway` of `@tollgate/core/minimal`
 * (`jwt: { engine: jwtEngine }`); `@tollgate/core` uses it by default.
 */
export { jwtEngine, type JwtEngine, type JwtOutcome, type JwtVerifier } from './identity/jwt.js';
