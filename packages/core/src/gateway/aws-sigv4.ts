/**
 * AWS Signature Version 4 for upstream calls (Amazon Bedrock), with aws4fetch: Web Crypto only,
 * so it runs on every runtime the gateway does. Loaded on first use.
 */
import type { AwsSigV4Credential } from '../registry/index.js';
import type { AwsKeys, AwsSigV4Signer, SignableCall } from './signers.js';

type Aws4Fetch = typeof import('aws4fetch');
let module: Promise<Aws4Fetch> | undefined;

function load(): Promise<Aws4Fetch> {
  module ??= import('aws4fetch').catch((error: unknown) => {
    module = undefined;
    throw error;
  });
  return module;
}

/**
 * Sign a POST: the returned headers are the given ones plus `x-amz-date`,
 * `x-amz-security-token` (temporary credentials) and `authorization`; `host` is signed from the
 * URL. aws4fetch caches the derived signing key per day, region and service.
 */
export async function signAws(call: SignableCall, credential: AwsSigV4Credential, keys: AwsKeys, datetime?: string): Promise<Headers> {
  const { AwsV4Signer } = await load();
  const signer = new AwsV4Signer({
    method: 'POST',
    url: call.url,
    headers: call.headers,
    body: call.body as BodyInit,
    accessKeyId: keys.accessKeyId,
    secretAccessKey: keys.secretAccessKey,
    ...(keys.sessionToken === undefined ? {} : { sessionToken: keys.sessionToken }),
    service: credential.service,
    region: credential.region,
    ...(datetime === undefined ? {} : { datetime }),
  });
  return (await signer.sign()).headers;
}

/** The AWS SigV4 signer (`options.signers`); `createGateway` of `@tollgate/core` includes it. */
export const awsSigV4Signer: AwsSigV4Signer = { kind: 'aws_sigv4', sign: (call, credential, keys) => signAws(call, credential, keys) };
