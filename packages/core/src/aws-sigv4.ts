/**
 * `@tollgate/core/aws-sigv4`: the AWS Signature Version 4 signer for Amazon Bedrock upstreams
 * (`aws_sigv4` credentials), for gateways built on `@tollgate/core/minimal`:
 *
 *   import { createGateway } from '@tollgate/core/minimal';
 *   import { awsSigV4Signer } from '@tollgate/core/aws-sigv4';
 *   const gateway = createGateway({ registry, identity, codecs, signers: [awsSigV4Signer] });
 *
 * `createGateway` of `@tollgate/core` includes it by default.
 */
export { awsSigV4Signer, signAws } from './gateway/aws-sigv4.js';
export type { AwsKeys, AwsSigV4Signer, SignableCall, UpstreamSigner } from './gateway/signers.js';
