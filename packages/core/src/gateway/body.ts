import { GatewayError } from '@tollgate/codecs/base';
import { repeatedKey } from './repeated-keys.js';
import { eachChunk, type GatewayRequest } from './request.js';

export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** Read a request body, refusing (413) as soon as it passes `max` bytes; never buffers beyond it. */
export async function readBoundedBody(request: Pick<GatewayRequest, 'headers' | 'body'>, max: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > max) throw tooLarge(max);
  const body = request.body;
  if (body === null) return new Uint8Array(0);
  if (body instanceof Uint8Array) {
    if (body.byteLength > max) throw tooLarge(max);
    return body;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const whole = await eachChunk(body, (chunk) => {
    size += chunk.byteLength;
    if (size > max) return false;
    chunks.push(chunk);
    return true;
  });
  if (!whole) throw tooLarge(max);
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(max: number): GatewayError {
  return new GatewayError('request_too_large', `The request body is larger than the ${max}-byte limit.`);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Parse a JSON request body; a clear 400 on anything else. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new GatewayError('invalid_request', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') throw new GatewayError('invalid_request', 'The request body is empty; a JSON object was expected.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new GatewayError('invalid_request', 'The request body is not valid JSON.', {
      detail: cause instanceof Error ? cause.message : String(cause),
    });
  }
  // What is priced must be what is sent: a key given twice could be read either way upstream.
  const repeated = repeatedKey(text, value);
  if (repeated !== null) {
    throw new GatewayError('invalid_request', `The request body gives the key '${repeated}' more than once; send each key once.`, { param: repeated });
  }
  return value;
}
