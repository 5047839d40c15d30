import {
  GatewayError,
  ISSUER_OF_FORMAT,
  codecOf,
  fromVertexEnvelope,
  shapePromptCache,
  toVertexEnvelope,
  type CacheShapingOptions,
  type CodecTable,
  type ConversionWarning,
  type Request as IRRequest,
  type WireFormat,
} from '@tollgate/codecs/base';
import type { Credential, GoogleServiceAccountCredential } from '../registry/index.js';
import { lossyWarnings } from './context.js';
import type { HeaderReader } from './request.js';
import type { SignerTable } from './signers.js';

/** Where a call's credential comes from: secrets by name, and the signers by credential kind. */
export interface CredentialSource {
  get(name: string): Promise<string>;
  /** The access token of a service account credential (cached by the gateway). */
  accessToken(credential: GoogleServiceAccountCredential): Promise<string>;
  readonly signers: SignerTable;
}

/** What the gateway needs to call one deployment (built from a registry candidate). */
export interface UpstreamTarget {
  deploymentId: string;
  providerId: string;
  baseUrl: string;
  /** The operation path with `{model}` substituted; `streamPath` when streaming and declared. */
  path: string;
  streamPath?: string;
  upstreamFormat: WireFormat;
  upstreamModel: string;
  plan: 'identity' | 'raw' | 'translate';
  /** Null for an upstream that takes no credential (a local pool). */
  credential: Credential | null;
  headers: Readonly<Record<string, string>>;
}

export interface UpstreamCall {
  url: string;
  init: RequestInit & { headers: Headers };
}

/** Body fields the gateway changes on an identity plan: only what the upstream call needs. */
export interface IdentityEdits {
  model?: string;
  /** The output bound the gateway sets when the client sent none. */
  maxTokens?: number;
  /** Ask an OpenAI Chat upstream for usage in the stream. */
  includeUsage?: boolean;
}

/** Where each format carries the output bound. */
const MAX_TOKENS_PATH: Record<WireFormat, readonly string[]> = {
  openai_chat: ['max_completion_tokens'],
  openai_responses: ['max_output_tokens'],
  anthropic_messages: ['max_tokens'],
  anthropic_vertex: ['max_tokens'],
  gemini_generate_content: ['generationConfig', 'maxOutputTokens'],
  bedrock_converse: ['inferenceConfig', 'maxTokens'],
};

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const next = node[key];
    const copy: Record<string, unknown> = typeof next === 'object' && next !== null && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
    node[key] = copy;
    node = copy;
  }
  node[path[path.length - 1]!] = value;
}

/** Raw plans: same family and vendor, another envelope; content passes untouched. */
const RAW_ENVELOPES: Partial<Record<string, (body: Record<string, unknown>, upstreamModel: string) => Record<string, unknown>>> = {
  'anthropic_messages>anthropic_vertex': (body) => toVertexEnvelope(body),
  'anthropic_vertex>anthropic_messages': (body, model) => fromVertexEnvelope(body, model),
};

/** The inputs of `upstreamBody`. */
export interface UpstreamBodyOptions {
  codecs: CodecTable;
  target: UpstreamTarget;
  /** The client's body, as received. */
  raw: Uint8Array;
  /** The client's body, parsed (an empty object when it is not a JSON object). */
  parsed: Record<string, unknown>;
  /** The canonical request. */
  ir: IRRequest;
  entryFormat: WireFormat;
  /** Whether the canonical request must be encoded afresh (a filter, policy prompts or DLP changed it). */
  irChanged: boolean;
  edits: IdentityEdits;
  cacheShaping?: CacheShapingOptions | undefined;
  /** Where the translation's drops are noted (this attempt's replace an earlier one's). */
  report?: { decodeWarnings: ConversionWarning[]; warnings: ConversionWarning[] } | undefined;
}

/**
 * Build the upstream body. Identity: the client's bytes unchanged unless the model id, the
 * output bound or usage reporting must change, in which case only those fields change. Raw:
 * only the envelope changes. Translate (and any plan whose request a filter or cache shaping
 * changed): encode the canonical request in the upstream format.
 */
export function upstreamBody({
  codecs,
  target,
  raw,
  parsed,
  ir,
  entryFormat,
  irChanged,
  edits,
  cacheShaping,
  report,
}: UpstreamBodyOptions): Uint8Array | string {
  if (report !== undefined) report.warnings = [];
  let request = ir;
  let changed = irChanged;
  if (cacheShaping !== undefined && ISSUER_OF_FORMAT[target.upstreamFormat] === 'anthropic') {
    const shaped = shapePromptCache(ir, cacheShaping);
    if (shaped.added > 0) {
      request = shaped.request;
      changed = true;
    }
  }
  const envelope = RAW_ENVELOPES[`${entryFormat}>${target.upstreamFormat}`];
  if (!changed && (target.upstreamFormat === entryFormat || (target.plan === 'raw' && envelope !== undefined))) {
    const needsModel = edits.model !== undefined && 'model' in parsed && parsed.model !== edits.model;
    const needsMax = edits.maxTokens !== undefined;
    const needsUsage = edits.includeUsage === true && entryFormat === 'openai_chat';
    if (envelope === undefined && !needsModel && !needsMax && !needsUsage) return raw;
    let copy: Record<string, unknown> = { ...parsed };
    if (needsModel) copy.model = edits.model;
    if (needsMax) setPath(copy, MAX_TOKENS_PATH[entryFormat], edits.maxTokens);
    if (needsUsage) {
      const existing = typeof copy.stream_options === 'object' && copy.stream_options !== null ? copy.stream_options : {};
      copy.stream_options = { ...(existing as Record<string, unknown>), include_usage: true };
    }
    if (envelope !== undefined) copy = envelope(copy, target.upstreamModel);
    return JSON.stringify(copy);
  }
  const encoded = codecOf(codecs, target.upstreamFormat).encodeRequest(request, { model: target.upstreamModel, stream: request.stream });
  // What neither format could carry: lost on decoding (vendor-only fields, …) when the upstream
  // is another format, and on encoding.
  if (report !== undefined) report.warnings = lossyWarnings([...(target.upstreamFormat === entryFormat ? [] : report.decodeWarnings), ...encoded.warnings]);
  return JSON.stringify(encoded.body);
}

const normalized = new Map<string, string>();

/** A deployment's URL as `URL` writes it, parsed once per distinct URL (a registry has few). */
function normalizedUrl(joined: string): string {
  let href = normalized.get(joined);
  if (href === undefined) {
    href = new URL(joined).toString();
    if (normalized.size >= 1024) normalized.clear();
    normalized.set(joined, href);
  }
  return href;
}

/** What a streaming call accepts, where it is not SSE. */
const STREAM_ACCEPT: Partial<Record<WireFormat, string>> = { bedrock_converse: 'application/vnd.amazon.eventstream' };

/** Headers never forwarded from the client: its credentials, hop-by-hop and identity claims. */
const CLIENT_HEADERS_TO_FORWARD = ['anthropic-beta', 'openai-beta', 'user-agent', 'accept'];

/** A call as the gateway makes it. Never follows redirects with a provider credential attached. */
function postCall(url: string, headers: Headers, body: Uint8Array | string, signal: AbortSignal): UpstreamCall {
  return { url, init: { method: 'POST', headers, body: body as BodyInit, signal, redirect: 'error' } };
}

/** A secret a credential names; a missing one is a gateway-side failure (503). */
async function readSecret(credentials: CredentialSource, target: UpstreamTarget, name: string): Promise<string> {
  try {
    return await credentials.get(name);
  } catch (cause) {
    throw new GatewayError('unavailable', 'The upstream credential is not configured.', {
      detail: `secret ${name} for provider ${target.providerId}: ${cause instanceof Error ? cause.message : String(cause)}`,
    });
  }
}

export async function buildUpstreamCall(
  target: UpstreamTarget,
  /** The client's bytes (identity), or JSON text (sent as UTF-8: Node writes it with the head in one go). */
  body: Uint8Array | string,
  stream: boolean,
  clientHeaders: HeaderReader,
  credentials: CredentialSource,
  signal: AbortSignal,
): Promise<UpstreamCall> {
  const path = stream && target.streamPath !== undefined ? target.streamPath : target.path;
  const joined = target.baseUrl.replace(/\/+$/, '') + path;
  const headers = new Headers();
  headers.set('content-type', 'application/json');
  for (const name of CLIENT_HEADERS_TO_FORWARD) {
    const value = clientHeaders.get(name);
    // anthropic-beta only makes sense to an Anthropic upstream with the same envelope.
    if (value !== null && (name !== 'anthropic-beta' || target.upstreamFormat.startsWith('anthropic'))) headers.set(name, value);
  }
  if (stream) headers.set('accept', STREAM_ACCEPT[target.upstreamFormat] ?? 'text/event-stream');
  const own = target.headers;
  for (const k of Object.keys(own)) headers.set(k, own[k]!);
  const c = target.credential;
  if (c === null) return postCall(normalizedUrl(joined), headers, body, signal);
  const read = (name: string): Promise<string> => readSecret(credentials, target, name);
  if (c.kind === 'aws_sigv4') {
    const [accessKeyId, secretAccessKey, sessionToken] = await Promise.all([
      read(c.accessKeyId),
      read(c.secretAccessKey),
      c.sessionToken === null ? undefined : read(c.sessionToken),
    ]);
    const url = normalizedUrl(joined);
    const keys = sessionToken === undefined ? { accessKeyId, secretAccessKey } : { accessKeyId, secretAccessKey, sessionToken };
    const signer = credentials.signers.aws_sigv4;
    // The gateway refused to start without one; a reload cannot remove it.
    if (signer === undefined) throw new GatewayError('unavailable', 'The upstream credential cannot be presented.', { detail: 'no aws_sigv4 signer' });
    let signed: Headers;
    try {
      signed = await signer.sign({ url, headers, body }, c, keys);
    } catch (cause) {
      throw new GatewayError('unavailable', 'The upstream request could not be signed.', {
        detail: `SigV4 for provider ${target.providerId}: ${cause instanceof Error ? cause.message : String(cause)}`,
      });
    }
    return { url, init: { method: 'POST', headers: signed, body: body as BodyInit, signal, redirect: 'error' } };
  }
  if (c.kind === 'google_service_account') {
    let token: string;
    try {
      token = await credentials.accessToken(c);
    } catch (cause) {
      if (GatewayError.isInstance(cause)) throw cause;
      throw new GatewayError('unavailable', 'The upstream credential is not configured.', {
        detail: `access token for provider ${target.providerId}: ${cause instanceof Error ? cause.message : String(cause)}`,
      });
    }
    headers.set('authorization', `Bearer ${token}`);
    return postCall(normalizedUrl(joined), headers, body, signal);
  }
  const value = await read(c.secret);
  if (c.kind === 'bearer') headers.set('authorization', `Bearer ${value}`);
  else if (c.kind === 'header') headers.set(c.header, value);
  else {
    const url = new URL(joined);
    url.searchParams.set(c.param, value);
    return postCall(url.toString(), headers, body, signal);
  }
  return postCall(normalizedUrl(joined), headers, body, signal);
}
