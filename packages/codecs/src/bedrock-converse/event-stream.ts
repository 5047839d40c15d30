/**
 * The AWS event-stream binary framing (`application/vnd.amazon.eventstream`), which Bedrock's
 * ConverseStream answers in. One message:
 *
 *   total length (u32 BE) · headers length (u32 BE) · CRC32 of those 8 bytes (u32 BE)
 *   headers: name length (u8) · name (UTF-8) · type (u8) · value   … repeated
 *   payload · CRC32 of everything before it (u32 BE)
 *
 * Written here rather than taken from `@smithy/core/event-streams` because that package's ESM
 * entry imports Node built-ins (node:stream, node:crypto, node:fs …) on a neutral platform, which
 * the edge packages may not; a differential test checks this reader and writer against it byte
 * for byte (BENCHMARKS.md, "Bedrock event-stream framing").
 */

/**
 * A header value as the framing carries it: booleans; bytes, shorts and integers as numbers;
 * longs as bigints; byte arrays; strings; timestamps as dates; UUIDs as their 8-4-4-4-12 text.
 * Only strings are written.
 */
export type EventStreamHeaderValue = string | number | boolean | bigint | Uint8Array | Date;

export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  body: Uint8Array;
}

export type EventStreamProblem = 'oversize' | 'checksum' | 'malformed' | 'truncated';

export interface EventStreamReader {
  feed(chunk: Uint8Array): void;
  end(): void;
}

const PRELUDE = 12;
const OVERHEAD = PRELUDE + 4;
/** The framing's own limit on headers per message. */
const MAX_HEADERS_BYTES = 128 * 1024;

/** CRC-32 tables for slicing by 8: table k holds the CRC of a byte followed by k zero bytes. */
const CRC_TABLES = (() => {
  const t = new Uint32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c >>> 0;
    }
  }
  return t;
})();

/**
 * The CRC-32 register (not inverted) after `bytes[from, to)` from register `c`, eight bytes a
 * step. The register update is linear over GF(2): what a fixed run of bytes does to any register
 * is "shift by that many zero bytes, then xor a constant" (`prepareEventStreamHeaders` uses it).
 */
function crcUpdate(bytes: Uint8Array, from: number, to: number, c: number): number {
  const t = CRC_TABLES;
  let i = from;
  const end8 = to - ((to - from) % 8);
  for (; i < end8; i += 8) {
    const lo = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    const hi = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    c =
      t[7 * 256 + (lo & 0xff)]! ^
      t[6 * 256 + ((lo >>> 8) & 0xff)]! ^
      t[5 * 256 + ((lo >>> 16) & 0xff)]! ^
      t[4 * 256 + (lo >>> 24)]! ^
      t[3 * 256 + (hi & 0xff)]! ^
      t[2 * 256 + ((hi >>> 8) & 0xff)]! ^
      t[256 + ((hi >>> 16) & 0xff)]! ^
      t[(hi >>> 24) & 0xff]!;
  }
  for (; i < to; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return c >>> 0;
}

/** CRC-32 (IEEE 802.3), the checksum of the framing, eight bytes a step. `seed` continues an earlier checksum. */
export function crc32(bytes: Uint8Array, seed = 0): number {
  return (crcUpdate(bytes, 0, bytes.length, (seed ^ 0xffffffff) >>> 0) ^ 0xffffffff) >>> 0;
}

const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text of a header: short ASCII (what AWS sends) without the decoder's call overhead. */
function utf8Text(bytes: Uint8Array): string {
  if (bytes.length <= 64) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) ascii = false;
    if (ascii) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  }
  return text.decode(bytes);
}

class Malformed extends Error {}
class ChecksumMismatch extends Error {}

function parseHeaders(bytes: Uint8Array): Record<string, EventStreamHeaderValue> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // No prototype: a header named `__proto__` (or `constructor`) from the wire is just a header.
  const out: Record<string, EventStreamHeaderValue> = Object.create(null) as Record<string, EventStreamHeaderValue>;
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new Malformed('header runs past the headers section');
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes[at]!;
    at += 1;
    need(nameLength + 1);
    const name = utf8Text(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = bytes[at]!;
    at += 1;
    let value: EventStreamHeaderValue;
    switch (type) {
      case 0:
        value = true;
        break;
      case 1:
        value = false;
        break;
      case 2:
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
        need(8);
        value = view.getBigInt64(at);
        at += 8;
        break;
      case 8: // milliseconds since the epoch, as a long
        need(8);
        value = new Date(Number(view.getBigInt64(at)));
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(at);
        at += 2;
        need(length);
        const raw = bytes.subarray(at, at + length);
        value = type === 7 ? utf8Text(raw) : raw.slice();
        at += length;
        break;
      }
      case 9: {
        need(16);
        const hex = Array.from(bytes.subarray(at, at + 16), (b) => b.toString(16).padStart(2, '0')).join('');
        value = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
        at += 16;
        break;
      }
      default:
        throw new Malformed(`unknown header value type ${type}`);
    }
    out[name] = value;
  }
  return out;
}

/** One complete message (exactly `total` bytes) → its headers and body; throws on a bad frame. */
export function decodeEventStreamMessage(frame: Uint8Array): EventStreamMessage {
  return decodeFrame(frame, false);
}

/** `decodeEventStreamMessage`; `preludeChecked` when the reader verified the prelude already. */
function decodeFrame(frame: Uint8Array, preludeChecked: boolean): EventStreamMessage {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const total = view.getUint32(0);
  const headersLength = view.getUint32(4);
  if (total !== frame.byteLength || headersLength > total - OVERHEAD) throw new Malformed('inconsistent lengths');
  if (headersLength > MAX_HEADERS_BYTES) throw new Malformed('headers larger than 128 KiB');
  if (!preludeChecked && crc32(frame.subarray(0, 8)) !== view.getUint32(8)) throw new ChecksumMismatch('prelude');
  if (crc32(frame.subarray(0, total - 4)) !== view.getUint32(total - 4)) throw new ChecksumMismatch('message');
  let headers: Record<string, EventStreamHeaderValue>;
  try {
    headers = parseHeaders(frame.subarray(PRELUDE, PRELUDE + headersLength));
  } catch (error) {
    if (error instanceof Malformed) throw error;
    throw new Malformed('a header is not valid UTF-8');
  }
  return { headers, body: frame.subarray(PRELUDE + headersLength, total - 4) };
}

/** String headers as the framing writes them (name length, name, type 7, value length, value). */
export function encodeEventStreamHeaders(headers: Record<string, string>): Uint8Array {
  const encoded: Array<[Uint8Array, Uint8Array]> = [];
  let length = 0;
  for (const [name, value] of Object.entries(headers)) {
    const n = utf8.encode(name);
    const v = utf8.encode(value);
    encoded.push([n, v]);
    length += 1 + n.length + 1 + 2 + v.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const [n, v] of encoded) {
    out[at++] = n.length;
    out.set(n, at);
    at += n.length;
    out[at++] = 7;
    out[at++] = v.length >>> 8;
    out[at++] = v.length & 0xff;
    out.set(v, at);
    at += v.length;
  }
  return out;
}

function setUint32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 0xff;
  out[at + 2] = (value >>> 8) & 0xff;
  out[at + 3] = value & 0xff;
}

/** A message from headers already written by `encodeEventStreamHeaders` (a stream reuses them) and a body. */
export function frameEventStreamMessage(headers: Uint8Array, body: Uint8Array): Uint8Array {
  const total = OVERHEAD + headers.length + body.length;
  const out = new Uint8Array(total);
  setUint32(out, 0, total);
  setUint32(out, 4, headers.length);
  const prelude = crc32(out.subarray(0, 8));
  setUint32(out, 8, prelude);
  out.set(headers, PRELUDE);
  out.set(body, PRELUDE + headers.length);
  // The message checksum continues from the prelude's: the first 8 bytes are not hashed twice.
  setUint32(out, total - 4, crc32(out.subarray(8, total - 4), prelude));
  return out;
}

/**
 * String headers written once for the many messages that carry them (a stream has a handful of
 * event types and many events), with what they do to the message checksum: a message's checksum
 * runs over its prelude, its headers and its body, and the headers' part is the same for every
 * message, so it is applied in four table look-ups instead of a pass over the header bytes.
 */
export interface PreparedEventStreamHeaders {
  readonly bytes: Uint8Array;
  /** The CRC register after the header bytes from register r is `shift(r) ^ constant`; shift as four tables of 256. */
  readonly shift: Uint32Array;
  readonly constant: number;
}

export function prepareEventStreamHeaders(headers: Record<string, string>): PreparedEventStreamHeaders {
  const bytes = encodeEventStreamHeaders(headers);
  const t = CRC_TABLES;
  // The register after `bytes.length` zero bytes from each single-byte-lane register: linear in the register.
  const shift = new Uint32Array(4 * 256);
  for (let lane = 0; lane < 4; lane++)
    for (let bit = 0; bit < 8; bit++) {
      let c = (1 << (lane * 8 + bit)) >>> 0;
      for (let i = 0; i < bytes.length; i++) c = t[c & 0xff]! ^ (c >>> 8);
      const base = lane * 256;
      const b = 1 << bit;
      // Every value of the lane with this bit as its highest set bit: the lower value's image xor this bit's.
      for (let v = b; v < 2 * b; v++) shift[base + v] = (shift[base + (v ^ b)]! ^ c) >>> 0;
    }
  return { bytes, shift, constant: crcUpdate(bytes, 0, bytes.length, 0) };
}

/** Frames of text bodies written one after another into shared buffers, one allocation per many frames. */
export interface EventStreamTextFramer {
  /** One message whose body is `text` (UTF-8); the bytes are never written again. */
  frame(headers: PreparedEventStreamHeaders, text: string): Uint8Array;
}

/** Buffers start small (a short stream costs little) and double up to this size. */
const FRAMER_MAX_BUFFER = 64 * 1024;

/**
 * A framer for one stream. Each frame is a view of a buffer the framer fills in order and never
 * rewrites, so frames stay valid however long they are held; a buffer is shared only by frames of
 * the same framer (never across streams).
 */
export function createEventStreamTextFramer(): EventStreamTextFramer {
  let buffer = new Uint8Array(0);
  let used = 0;
  let next = 1024;
  return {
    frame(headers, text) {
      const h = headers.bytes.length;
      const start = PRELUDE + h;
      const worst = start + text.length * 3 + 4;
      let out = buffer;
      let at = used;
      if (worst > FRAMER_MAX_BUFFER) {
        // A frame larger than a shared buffer gets one of its own, let go with the frame: the
        // stream's later small frames are not views that keep megabytes alive.
        out = new Uint8Array(worst);
        at = 0;
      } else if (buffer.length - used < worst) {
        out = buffer = new Uint8Array(Math.max(next, worst));
        at = used = 0;
        if (next < FRAMER_MAX_BUFFER) next *= 2;
      }
      const written = text.length === 0 ? 0 : utf8.encodeInto(text, out.subarray(at + start, at + worst - 4)).written;
      const total = start + written + 4;
      setUint32(out, at, total);
      setUint32(out, at + 4, h);
      let c = crcUpdate(out, at, at + 8, 0xffffffff);
      setUint32(out, at + 8, (c ^ 0xffffffff) >>> 0);
      out.set(headers.bytes, at + PRELUDE);
      c = crcUpdate(out, at + 8, at + PRELUDE, c);
      const s = headers.shift;
      c = (s[c & 0xff]! ^ s[256 + ((c >>> 8) & 0xff)]! ^ s[512 + ((c >>> 16) & 0xff)]! ^ s[768 + (c >>> 24)]! ^ headers.constant) >>> 0;
      c = crcUpdate(out, at + start, at + start + written, c);
      setUint32(out, at + total - 4, (c ^ 0xffffffff) >>> 0);
      if (out === buffer) used = at + total;
      return out.subarray(at, at + total);
    },
  };
}

/** Headers (string values) and a body → one framed message. */
export function encodeEventStreamMessage(headers: Record<string, string>, body: Uint8Array): Uint8Array {
  return frameEventStreamMessage(encodeEventStreamHeaders(headers), body);
}

/**
 * An incremental reader: complete messages go to `onMessage` as soon as their last byte arrives;
 * at most one incomplete message is held (bounded by `maxMessageBytes`). The first bad frame
 * (checksum, lengths, headers), an oversized one, or input that ends inside a frame is reported
 * once to `onProblem`, and the rest of the input is ignored.
 */
export function createEventStreamReader(
  onMessage: (message: EventStreamMessage) => void,
  onProblem: (problem: EventStreamProblem, detail: string) => void,
  maxMessageBytes: number,
): EventStreamReader {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let failed = false;
  const fail = (problem: EventStreamProblem, detail: string) => {
    failed = true;
    pending = [];
    pendingBytes = 0;
    onProblem(problem, detail);
  };
  /** The length the prelude at `at` declares (its checksum verified first), or null after a problem. */
  const frameLength = (buf: Uint8Array, at: number): number | null => {
    const view = new DataView(buf.buffer, buf.byteOffset + at, PRELUDE);
    if (crc32(buf.subarray(at, at + 8)) !== view.getUint32(8)) {
      fail('checksum', 'the prelude checksum does not match');
      return null;
    }
    const total = view.getUint32(0);
    if (total < OVERHEAD) {
      fail('malformed', `a frame declares ${total} bytes, less than the ${OVERHEAD} every frame has`);
      return null;
    }
    if (total > maxMessageBytes) {
      fail('oversize', `a frame declares ${total} bytes`);
      return null;
    }
    return total;
  };
  const consume = (buf: Uint8Array): void => {
    let at = 0;
    while (!failed && buf.length - at >= PRELUDE) {
      const total = frameLength(buf, at);
      if (total === null) return;
      if (buf.length - at < total) break;
      const frame = buf.subarray(at, at + total);
      at += total;
      let message: EventStreamMessage;
      try {
        message = decodeFrame(frame, true);
      } catch (error) {
        if (error instanceof ChecksumMismatch) fail('checksum', `the ${error.message} checksum does not match`);
        else fail('malformed', error instanceof Error ? error.message : String(error));
        return;
      }
      onMessage(message);
    }
    if (!failed && at < buf.length) {
      // Keep the incomplete tail (copied: the caller may reuse its chunk).
      pending = [buf.slice(at)];
      pendingBytes = buf.length - at;
    }
  };
  return {
    feed(chunk) {
      if (failed || chunk.length === 0) return;
      if (pendingBytes === 0) {
        consume(chunk);
        return;
      }
      pending.push(chunk);
      pendingBytes += chunk.length;
      // Join only once the held frame can be complete (or its prelude can be read).
      const first = pending[0]!;
      let need = PRELUDE;
      if (first.length >= PRELUDE) {
        const total = frameLength(first, 0);
        if (total === null) return;
        need = total;
      }
      if (pendingBytes < need) return;
      const joined = new Uint8Array(pendingBytes);
      let at = 0;
      for (const part of pending) {
        joined.set(part, at);
        at += part.length;
      }
      pending = [];
      pendingBytes = 0;
      consume(joined);
    },
    end() {
      if (failed) return;
      if (pendingBytes > 0) fail('truncated', `the input ended ${pendingBytes} bytes into a frame`);
    },
  };
}
