/**
 * A mock Amazon Bedrock for tests: it checks each call's SigV4 signature with the AWS SDK's own
 * signer (@smithy/signature-v4, independent of the aws4fetch the gateway signs with), answers a
 * bad one as Bedrock does (403 InvalidSignatureException), and replays recorded Converse answers
 * and ConverseStream event streams.
 */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { fixtureText } from './fixtures.js';
import type { Scenario } from './mock-upstream.js';

export const AWS_KEYS = {
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE000000001',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2VjEXAMPLE-session-token',
};

/** A SHA-256 (and HMAC-SHA-256 with a secret) the smithy signer can use, over node:crypto. */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    const key =
      secret === undefined
        ? undefined
        : typeof secret === 'string'
          ? secret
          : Buffer.from(secret instanceof ArrayBuffer ? new Uint8Array(secret) : new Uint8Array(secret.buffer, secret.byteOffset, secret.byteLength));
    this.hash = key === undefined ? createHash('sha256') : createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(
      typeof data === 'string' ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    );
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

export interface SignatureCheck {
  ok: boolean;
  reason?: string;
  signedHeaders?: string[];
  region?: string;
  service?: string;
}

/**
 * Re-sign the request as received (same date, same signed headers) with the AWS SDK's signer and
 * compare. `keys` are the secrets the gateway was given.
 */
export async function checkSigV4(
  request: Request,
  body: Uint8Array,
  keys: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
): Promise<SignatureCheck> {
  const authorization = request.headers.get('authorization') ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  if (match === null) return { ok: false, reason: `not a SigV4 authorization: ${authorization.slice(0, 40)}` };
  const [, keyId, , region, service, signed, signature] = match as unknown as string[];
  if (keyId !== keys.accessKeyId) return { ok: false, reason: 'unknown access key id' };
  const amzDate = request.headers.get('x-amz-date');
  if (amzDate === null) return { ok: false, reason: 'no x-amz-date' };
  const signedHeaders = signed!.split(';');
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    if (name === 'x-amz-date' || name === 'x-amz-security-token') continue;
    // A Request built from the wire may have dropped `host` (a forbidden header): the URL has it.
    const value = request.headers.get(name) ?? (name === 'host' ? url.host : null);
    if (value === null) return { ok: false, reason: `signed header ${name} missing` };
    headers[name] = value;
  }
  const host = headers['host'] ?? url.host;
  const [hostname, port] = host.split(':');
  const query: Record<string, string> = {};
  url.searchParams.forEach((v, k) => (query[k] = v));
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: keys.accessKeyId,
      secretAccessKey: keys.secretAccessKey,
      ...(keys.sessionToken === undefined ? {} : { sessionToken: keys.sessionToken }),
    },
    region: region!,
    service: service!,
    sha256: NodeSha256,
    applyChecksum: false,
  });
  const date = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const resigned = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: hostname!,
      ...(port === undefined ? {} : { port: Number(port) }),
      path: url.pathname,
      query,
      headers,
      body,
    },
    { signingDate: date },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(resigned.headers['authorization']))?.[1];
  const expectedHeaders = /SignedHeaders=([^,]+)/.exec(String(resigned.headers['authorization']))?.[1];
  if (expectedHeaders !== signed) return { ok: false, reason: `signed headers ${signed} vs ${expectedHeaders}` };
  if (keys.sessionToken !== undefined && request.headers.get('x-amz-security-token') !== keys.sessionToken)
    return { ok: false, reason: 'session token missing' };
  return expected === signature ? { ok: true, signedHeaders, region: region!, service: service! } : { ok: false, reason: 'signature mismatch' };
}

export interface BedrockMock {
  scenario: Scenario;
  /** The result of each signature check, in order. */
  checks: SignatureCheck[];
}

/**
 * A Bedrock runtime endpoint: `/model/{id}/converse` answers `json`, `/converse-stream` streams
 * `stream` (bytes, in small chunks, `application/vnd.amazon.eventstream`). Unsigned or badly
 * signed calls get Bedrock's 403.
 */
export function mockBedrock(
  keys: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  answers: { json?: string; stream?: () => Uint8Array; status?: number; errorType?: string },
): BedrockMock {
  const checks: SignatureCheck[] = [];
  const scenario: Scenario = async (request) => {
    const body = new Uint8Array(await request.clone().arrayBuffer());
    const check = await checkSigV4(request, body, keys);
    checks.push(check);
    if (!check.ok) {
      return new Response(JSON.stringify({ message: 'The request signature we calculated does not match the signature you provided.' }), {
        status: 403,
        headers: {
          'content-type': 'application/json',
          'x-amzn-errortype': 'InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/',
        },
      });
    }
    if (answers.status !== undefined) {
      return new Response(answers.json ?? '{}', {
        status: answers.status,
        headers: {
          'content-type': 'application/json',
          'x-amzn-errortype': `${answers.errorType ?? 'ValidationException'}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        },
      });
    }
    const path = new URL(request.url).pathname;
    if (path.endsWith('/converse-stream')) {
      const bytes = answers.stream!();
      let at = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (at >= bytes.length) return controller.close();
            controller.enqueue(bytes.slice(at, at + 97));
            at += 97;
          },
        }),
        { headers: { 'content-type': 'application/vnd.amazon.eventstream' } },
      );
    }
    return new Response(answers.json ?? fixtureText('bedrock-converse/response-converse.json'), { headers: { 'content-type': 'application/json' } });
  };
  return { scenario, checks };
}
