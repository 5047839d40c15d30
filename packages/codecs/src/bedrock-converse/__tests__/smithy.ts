/**
 * The maintained AWS event-stream codec (`@smithy/core/event-streams`, what the AWS SDK uses),
 * as the reference the framing of this folder is tested against, and a way to frame the decoded
 * ConverseStream fixtures (`{ "<:event-type>": payload }` per frame) as Bedrock sends them.
 */
import { EventStreamCodec, type Message, type MessageHeaders } from '@smithy/core/event-streams';
import { fixtureBytes, fixtureJson } from '../../../../../test/support/fixtures.js';

const utf8 = new TextEncoder();
const text = new TextDecoder();

export const smithy = new EventStreamCodec(
  (input: Uint8Array | string) => (typeof input === 'string' ? input : text.decode(input)),
  (input: string) => utf8.encode(input),
);

/** A whole stream split into its frames by their length prefixes (no checks): the reference's input. */
export function splitFrames(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const total = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
    out.push(bytes.subarray(at, at + total));
    at += total;
  }
  return out;
}

export function stringHeaders(headers: Record<string, string>): MessageHeaders {
  const out: MessageHeaders = {};
  // Own properties even for `__proto__`, as the headers object has them.
  for (const [name, value] of Object.entries(headers))
    Object.defineProperty(out, name, { value: { type: 'string', value }, enumerable: true, writable: true, configurable: true });
  return out;
}

/** One ConverseStream event frame, framed by the reference codec. */
export function smithyEventFrame(type: string, payload: unknown): Uint8Array {
  return smithy.encode({
    headers: stringHeaders({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }),
    body: utf8.encode(JSON.stringify(payload)),
  });
}

/** One exception frame, framed by the reference codec. */
export function smithyExceptionFrame(type: string, message: string): Uint8Array {
  return smithy.encode({
    headers: stringHeaders({ ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }),
    body: utf8.encode(JSON.stringify({ message })),
  });
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * A recorded ConverseStream as the bytes Bedrock sent: `.eventstream` files verbatim, decoded
 * `.json` files framed again (payload text as recorded, in the recorded order).
 */
export function recordedStream(file: string): Uint8Array {
  if (file.endsWith('.eventstream')) return fixtureBytes(file);
  const frames = fixtureJson<Array<Record<string, unknown>>>(file).map((entry) => {
    const [type, payload] = Object.entries(entry)[0]!;
    return smithyEventFrame(type, payload);
  });
  return concat(frames);
}

export type { Message };
