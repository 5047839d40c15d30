// `@tollgate/core`: everything in `@tollgate/core/minimal`, with the `createGateway` that speaks
// every wire format by default and the `createIdentityResolver` that verifies JWTs by default
// (an explicit export takes precedence over `export *`).
export * from './minimal.js';
export { createGateway } from './gateway/all-codecs.js';
export { createIdentityResolver } from './identity/with-jwt.js';
export { awsSigV4Signer } from './gateway/aws-sigv4.js';
export { googleServiceAccountSigner } from './gateway/google-service-account.js';
export { operationKinds, type OperationKinds } from './gateway/kinds.js';
