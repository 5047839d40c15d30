/**
 * The event-stream framing against the AWS SDK's own codec (@smithy/core/event-streams): the
 * recorded Bedrock stream and random messages read and write byte for byte alike; corrupt,
 * truncated and oversized input is reported, never delivered and never buffered beyond a frame.
 */
import fc from 'fast-check';
import { Int64 } from '@smithy/core/event-streams';
import { describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureJson } from '../../../../test/support/fixtures.js';
import { concat, smithy, splitFrames, stringHeaders } from './__tests__/smithy.js';
import {
  crc32,
  createEventStreamReader,
  createEventStreamTextFramer,
  decodeEventStreamMessage,
  encodeEventStreamMessage,
  frameEventStreamMessage,
  prepareEventStreamHeaders,
  type EventStreamMessage,
  type EventStreamProblem,
} from './event-stream.js';

const RECORDED = fixtureBytes('bedrock-converse/stream-tool-use.eventstream');
const text = new TextDecoder();

function readAll(chunks: Uint8Array[], max = 1 << 20): { messages: EventStreamMessage[]; problems: Array<[EventStreamProblem, string]> } {
  const messages: EventStreamMessage[] = [];
  const problems: Array<[EventStreamProblem, string]> = [];
  const reader = createEventStreamReader(
    (m) => messages.push({ headers: m.headers, body: m.body.slice() }),
    (p, d) => problems.push([p, d]),
    max,
  );
  for (const chunk of chunks) reader.feed(chunk);
  reader.end();
  return { messages, problems };
}

/** Smithy's tagged header values as plain values (what this reader returns). */
function plain(headers: Record<string, { type: string; value: unknown }>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, h] of Object.entries(headers)) out[name] = h.value instanceof Int64 ? BigInt(h.value.toString()) : h.value;
  return out;
}

describe('AWS event-stream framing, differential against @smithy/core/event-streams', () => {
  it('CRC-32 is the IEEE checksum the framing uses', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array())).toBe(0);
  });

  it('the recorded ConverseStream: the same frames, headers and bodies as the reference decodes', () => {
    const reference = splitFrames(RECORDED).map((f) => smithy.decode(f));
    const { messages, problems } = readAll([RECORDED]);
    expect(problems).toEqual([]);
    expect(messages).toHaveLength(reference.length);
    messages.forEach((m, i) => {
      expect(m.headers).toEqual(plain(reference[i]!.headers as never));
      expect(text.decode(m.body)).toBe(text.decode(reference[i]!.body));
    });
    // …and they are the recorded events, in order (the decoded copy of the same recording).
    const decoded = fixtureJson<Array<Record<string, unknown>>>('bedrock-converse/stream-tool-use.json');
    expect(messages.map((m) => ({ [m.headers[':event-type'] as string]: JSON.parse(text.decode(m.body)) }))).toEqual(decoded);
  });

  it('writing the recorded frames again gives the recorded bytes', () => {
    const frames = splitFrames(RECORDED);
    const again = frames.map((f) => {
      const m = decodeEventStreamMessage(f);
      return encodeEventStreamMessage(m.headers as Record<string, string>, m.body);
    });
    expect(concat(again)).toEqual(RECORDED);
  });

  it('random string headers and bodies: byte-identical to the reference encoder, and each reads the other', () => {
    const name = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => new TextEncoder().encode(s).length <= 255);
    fc.assert(
      fc.property(fc.dictionary(name, fc.string({ maxLength: 200 }), { maxKeys: 6 }), fc.uint8Array({ maxLength: 2000 }), (headers, body) => {
        const ours = encodeEventStreamMessage(headers, body);
        const theirs = smithy.encode({ headers: stringHeaders(headers), body });
        expect(ours).toEqual(theirs);
        const read = decodeEventStreamMessage(theirs);
        expect(read.headers).toEqual(headers);
        expect(read.body).toEqual(body);
      }),
      { numRuns: 2000 },
    );
  });

  it('a header named __proto__ is a header like any other (found by the property test above)', () => {
    const frame = encodeEventStreamMessage(
      Object.fromEntries([
        ['__proto__', 'x'],
        [':event-type', 'messageStart'],
      ]),
      new Uint8Array(),
    );
    const m = decodeEventStreamMessage(frame);
    expect(Object.keys(m.headers)).toEqual(['__proto__', ':event-type']);
    expect(m.headers['__proto__']).toBe('x');
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it('every header type the reference writes is read to the same value', () => {
    const frame = smithy.encode({
      headers: {
        t: { type: 'boolean', value: true },
        f: { type: 'boolean', value: false },
        b: { type: 'byte', value: -7 },
        s: { type: 'short', value: -30000 },
        i: { type: 'integer', value: 123456789 },
        l: { type: 'long', value: Int64.fromNumber(-9007199254740991) },
        x: { type: 'binary', value: new Uint8Array([0, 255, 1]) },
        str: { type: 'string', value: 'héllo' },
        ts: { type: 'timestamp', value: new Date(1_700_000_000_123) },
        u: { type: 'uuid', value: '0123abcd-4567-89ef-0123-456789abcdef' },
      },
      body: new Uint8Array([1, 2, 3]),
    });
    const m = decodeEventStreamMessage(frame);
    expect(m.headers).toEqual({
      t: true,
      f: false,
      b: -7,
      s: -30000,
      i: 123456789,
      l: -9007199254740991n,
      x: new Uint8Array([0, 255, 1]),
      str: 'héllo',
      ts: new Date(1_700_000_000_123),
      u: '0123abcd-4567-89ef-0123-456789abcdef',
    });
    expect(plain(smithy.decode(frame).headers as never)).toMatchObject({
      b: -7,
      s: -30000,
      i: 123456789,
      str: 'héllo',
      u: '0123abcd-4567-89ef-0123-456789abcdef',
    });
  });

  it('any slicing of the recorded stream gives the same messages', () => {
    const whole = readAll([RECORDED]).messages;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: RECORDED.length }), { maxLength: 30 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let last = 0;
        for (const p of [...points, RECORDED.length]) {
          chunks.push(RECORDED.subarray(last, p));
          last = p;
        }
        expect(readAll(chunks).messages).toEqual(whole);
      }),
      { numRuns: 100 },
    );
    const oneByOne = Array.from({ length: RECORDED.length }, (_, i) => RECORDED.subarray(i, i + 1));
    expect(readAll(oneByOne).messages).toEqual(whole);
  });
});

describe('bad frames', () => {
  const frames = splitFrames(RECORDED);

  it('a flipped payload byte: a message checksum mismatch, reported once; the frames before it are delivered, none after', () => {
    const bad = frames[3]!.slice();
    bad[bad.length - 10] = bad[bad.length - 10]! ^ 0x01;
    const stream = concat([frames[0]!, frames[1]!, frames[2]!, bad, frames[4]!]);
    const { messages, problems } = readAll([stream]);
    expect(messages).toHaveLength(3);
    expect(problems).toEqual([['checksum', 'the message checksum does not match']]);
    expect(() => smithy.decode(bad)).toThrow(/checksum/i); // the reference rejects it too
  });

  it('a flipped length byte: a prelude checksum mismatch, before the length is trusted', () => {
    const bad = frames[1]!.slice();
    bad[2] = bad[2]! ^ 0x40; // total length now ~4 MB: never waited for
    const { messages, problems } = readAll([concat([frames[0]!, bad])]);
    expect(messages).toHaveLength(1);
    expect(problems).toEqual([['checksum', 'the prelude checksum does not match']]);
    expect(() => smithy.decode(bad)).toThrow();
  });

  it('input that ends inside a frame is reported as truncated', () => {
    const cut = concat([frames[0]!, frames[1]!.subarray(0, 20)]);
    const { messages, problems } = readAll([cut]);
    expect(messages).toHaveLength(1);
    expect(problems).toEqual([['truncated', 'the input ended 20 bytes into a frame']]);
    // Fewer bytes than a prelude are truncated too.
    expect(readAll([frames[0]!.subarray(0, 5)]).problems).toEqual([['truncated', 'the input ended 5 bytes into a frame']]);
  });

  it('a frame longer than the cap is refused from its prelude, without buffering it', () => {
    const big = encodeEventStreamMessage({ ':event-type': 'contentBlockDelta' }, new Uint8Array(5000));
    const { messages, problems } = readAll([big.subarray(0, 100)], 1000);
    expect(messages).toEqual([]);
    expect(problems).toEqual([['oversize', `a frame declares ${big.length} bytes`]]);
  });

  it('a declared length below the minimum frame, and an unknown header type, are malformed', () => {
    const tiny = new Uint8Array(12);
    new DataView(tiny.buffer).setUint32(0, 10);
    new DataView(tiny.buffer).setUint32(8, crc32(tiny.subarray(0, 8)));
    expect(readAll([tiny]).problems[0]![0]).toBe('malformed');
    const frame = encodeEventStreamMessage({ a: 'b' }, new Uint8Array());
    frame[12 + 1 + 1] = 42; // the header's type byte
    const view = new DataView(frame.buffer);
    view.setUint32(frame.length - 4, crc32(frame.subarray(0, frame.length - 4)));
    expect(readAll([frame]).problems).toEqual([['malformed', 'unknown header value type 42']]);
  });

  it('after a problem, later input is ignored', () => {
    const messages: EventStreamMessage[] = [];
    const problems: string[] = [];
    const reader = createEventStreamReader(
      (m) => messages.push(m),
      (p) => problems.push(p),
      1 << 20,
    );
    const bad = frames[0]!.slice();
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    reader.feed(bad);
    reader.feed(frames[1]!);
    reader.end();
    expect(messages).toEqual([]);
    expect(problems).toEqual(['checksum']);
  });
});

describe('CRC-32, eight bytes a step', () => {
  it('equals the byte-at-a-time definition for every length and offset', () => {
    const table = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const slow = (bytes: Uint8Array) => {
      let c = 0xffffffff;
      for (const b of bytes) c = table[(c ^ b) & 0xff]! ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 7 }), (bytes, offset) => {
        const view = bytes.subarray(Math.min(offset, bytes.length));
        expect(crc32(view)).toBe(slow(view));
        const half = Math.floor(view.length / 2);
        expect(crc32(view.subarray(half), crc32(view.subarray(0, half)))).toBe(slow(view));
      }),
      { numRuns: 500 },
    );
  });
});

describe('frames written straight from text', () => {
  it('are the frames of its UTF-8 bytes, for any text', () => {
    const headers = prepareEventStreamHeaders({ ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' });
    const framer = createEventStreamTextFramer();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const framed = framer.frame(headers, text);
        expect(framed).toEqual(frameEventStreamMessage(headers.bytes, new TextEncoder().encode(text)));
        expect(() => smithy.decode(framed)).not.toThrow();
      }),
      { numRuns: 300 },
    );
    // Lone surrogates are written as U+FFFD, as the TextEncoder writes them.
    const lone = 'a\ud800b\udc00\ud83d';
    expect(framer.frame(headers, lone)).toEqual(frameEventStreamMessage(headers.bytes, new TextEncoder().encode(lone)));
  });
});

describe('frames written in sequence by a framer, with prepared headers', () => {
  const headerSet = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 40 }).filter((s) => new TextEncoder().encode(s).length <= 255),
    fc.string({ maxLength: 120 }),
    { maxKeys: 5 },
  );

  it('each is byte-identical to the reference encoder, and stays so while later frames are written', () => {
    fc.assert(
      fc.property(
        fc.array(headerSet, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 30_000 }))), {
          minLength: 1,
          maxLength: 60,
        }),
        (sets, bodies) => {
          const prepared = sets.map((h) => prepareEventStreamHeaders(h));
          const framer = createEventStreamTextFramer();
          const written = bodies.map(([k, body]) => {
            const i = k % sets.length;
            return { i, body, frame: framer.frame(prepared[i]!, body) };
          });
          for (const { i, body, frame } of written) {
            const theirs = smithy.encode({ headers: stringHeaders(sets[i]!), body: new TextEncoder().encode(body) });
            expect(frame).toEqual(theirs);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a frame too large for a shared buffer gets its own, and later small frames do not keep it alive', () => {
    const framer = createEventStreamTextFramer();
    const delta = prepareEventStreamHeaders({ ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' });
    const before = framer.frame(delta, 'small');
    const large = 'é'.repeat(1 << 20);
    const big = framer.frame(delta, large);
    const after = framer.frame(delta, 'small again');
    expect(big).toEqual(frameEventStreamMessage(delta.bytes, new TextEncoder().encode(large)));
    expect(big.buffer).not.toBe(before.buffer);
    expect(after.buffer).toBe(before.buffer);
    expect(after.buffer.byteLength).toBeLessThanOrEqual(64 * 1024);
    expect(before).toEqual(frameEventStreamMessage(delta.bytes, new TextEncoder().encode('small')));
    expect(after).toEqual(frameEventStreamMessage(delta.bytes, new TextEncoder().encode('small again')));
  });

  it('a long stream of frames reads back as the same messages', () => {
    const framer = createEventStreamTextFramer();
    const delta = prepareEventStreamHeaders({ ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' });
    const stop = prepareEventStreamHeaders({ ':event-type': 'contentBlockStop', ':content-type': 'application/json', ':message-type': 'event' });
    const bodies = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ contentBlockIndex: 0, delta: { text: `«${'x'.repeat(i % 300)}» ${i}` } }));
    const frames = bodies.map((b, i) => framer.frame(i % 7 === 6 ? stop : delta, b));
    const { messages, problems } = readAll([concat(frames)], 1 << 20);
    expect(problems).toEqual([]);
    expect(messages.map((m) => text.decode(m.body))).toEqual(bodies);
    expect(messages.map((m) => m.headers[':event-type'])).toEqual(bodies.map((_, i) => (i % 7 === 6 ? 'contentBlockStop' : 'contentBlockDelta')));
  });
});
