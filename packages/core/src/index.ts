// `@tollgate/core`: everything in `@tollgate/core/minimal`, with the `createGateway` that speaks
// every wire format by default and the `createIdentityResolver` that verifies JWTs by default
// (an explicit export takes precedence over `export *`).
export * from './minimal.js';
export { createGateway } from './gateway/all-codecs.js';
export { createIdentityResolver } from './identity/with-jwt.js';
