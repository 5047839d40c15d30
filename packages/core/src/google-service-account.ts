/**
 * `@tollgate/core/google-service-account`: access tokens from Google service account keys
 * (`google_service_account` credentials, Vertex AI), for gateways built on
 * `@tollgate/core/minimal`:
 *
 *   import { createGateway } from '@tollgate/core/minimal';
 *   import { googleServiceAccountSigner } from '@tollgate/core/google-service-account';
 *   createGateway({ registry, identity, codecs, signers: [googleServiceAccountSigner] });
 *
 * `createGateway` of `@tollgate/core` includes it by default.
 */
export { googleServiceAccountSigner, createGoogleServiceAccountSigner, fetchServiceAccountToken, TOKEN_TIMEOUT_MS } from './gateway/google-service-account.js';
export type { GoogleServiceAccountSignerOptions } from './gateway/google-service-account.js';
export type { AccessToken, GoogleServiceAccountSigner } from './gateway/signers.js';
