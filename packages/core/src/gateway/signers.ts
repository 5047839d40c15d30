/**
 * Upstream credentials that take more than a header: a signer presents them by signing each call
 * (AWS SigV4). Signers are given to the gateway (`options.signers`), so a bundle that signs
 * nothing (a Worker built on `@tollgate/core/minimal`) holds no signing library; `createGateway`
 * of `@tollgate/core` brings the AWS signer by default.
 */
import type { AwsSigV4Credential, Registry } from '../registry/index.js';
import { GatewayConfigError } from './config-error.js';

/** The call to sign: its final URL, headers and exact body bytes. */
export interface SignableCall {
  url: string;
  headers: Headers;
  body: Uint8Array | string;
}

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Signs calls for `aws_sigv4` credentials: returns the headers to send. */
export interface AwsSigV4Signer {
  readonly kind: 'aws_sigv4';
  sign(call: SignableCall, credential: AwsSigV4Credential, keys: AwsKeys): Promise<Headers>;
}

export type UpstreamSigner = AwsSigV4Signer;

export type SignerTable = Partial<{ aws_sigv4: AwsSigV4Signer }>;

function isSigner(value: unknown): value is UpstreamSigner {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'aws_sigv4' && typeof (value as { sign?: unknown }).sign === 'function';
}

/** The gateway's signers by credential kind, or a refusal naming what is wrong with the list. */
export function signerTableFrom(list: unknown): SignerTable {
  if (list === undefined) return {};
  const table: SignerTable = {};
  const issues: Array<{ path: string; message: string }> = [];
  if (!Array.isArray(list)) issues.push({ path: 'signers', message: 'a list of signers, e.g. [awsSigV4Signer]' });
  else list.forEach((s: unknown, i) => (isSigner(s) ? (table[s.kind] = s) : issues.push({ path: `signers[${i}]`, message: 'not a signer (import awsSigV4Signer from @tollgate/core/aws-sigv4)' })));
  if (issues.length > 0) throw new GatewayConfigError('options', issues);
  return table;
}

/** Refuse to start when a provider's credential needs a signer the gateway was not given. */
export function assertSignersCover(registry: Registry, signers: SignerTable): void {
  const issues: Array<{ path: string; message: string }> = [];
  for (const provider of Object.values(registry.providers)) {
    const c = provider.credential;
    if (c !== null && c.kind === 'aws_sigv4' && signers.aws_sigv4 === undefined) {
      issues.push({ path: 'signers', message: `no signer for credential kind aws_sigv4, needed by provider ${provider.id}: add awsSigV4Signer from '@tollgate/core/aws-sigv4'` });
    }
  }
  if (issues.length > 0) throw new GatewayConfigError('options', issues);
}
