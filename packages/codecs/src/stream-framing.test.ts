import { describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from './anthropic-messages/index.js';
import { createFrameReader, utf8Chunks } from './stream-framing.js';
import type { SseMessage } from './sse/parse.js';

/** A small deterministic generator (mulberry32), so a failure names its case. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Bytes rich in what a split can cut: multi-byte sequences, stray and invalid bytes, BOMs. */
function bytesFor(next: () => number, length: number): Uint8Array {
  const pieces = ['a', '\n', 'é', '€', '😀', '\ufeff', '日本'].map((s) => new TextEncoder().encode(s));
  const out: number[] = [];
  if (next() < 0.3) out.push(0xef, 0xbb, 0xbf);
  while (out.length < length) {
    const r = next();
    if (r < 0.75) out.push(...pieces[Math.floor(next() * pieces.length)]!);
    else out.push([0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xe2, 0xed, 0xf0, 0xf4, 0xf5, 0xff][Math.floor(next() * 11)]!);
  }
  return Uint8Array.from(out);
}

/** What a streaming `TextDecoder` (one per stream) makes of the same chunks. */
function reference(chunks: readonly Uint8Array[]): string {
  const d = new TextDecoder();
  return chunks.map((c) => d.decode(c, { stream: true })).join('') + d.decode();
}

function splits(next: () => number, bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.byteLength) {
    const size = next() < 0.5 ? 1 + Math.floor(next() * 4) : Math.floor(next() * 40);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe('utf8Chunks: stream chunks decoded without a decoder per stream', () => {
  it('gives the text a streaming TextDecoder gives, however the bytes are split (2,000 random cases)', () => {
    const next = random(20261201);
    for (let n = 0; n < 2000; n++) {
      const chunks = splits(next, bytesFor(next, Math.floor(next() * 60)));
      const text = utf8Chunks();
      const ours = chunks.map((c) => text.decode(c)).join('') + text.end();
      expect(ours, `case ${n}: ${chunks.map((c) => Buffer.from(c).toString('hex')).join('|')}`).toBe(reference(chunks));
    }
  });

  it('drops a BOM only at the start of the stream, also when it arrives byte by byte', () => {
    const text = utf8Chunks();
    const out = [0xef, 0xbb, 0xbf, 0x61, 0xef, 0xbb, 0xbf].map((b) => text.decode(Uint8Array.of(b))).join('') + text.end();
    expect(out).toBe('a\ufeff');
  });

  it('ends a sequence cut by the end of the stream with U+FFFD', () => {
    const text = utf8Chunks();
    expect(text.decode(Uint8Array.of(0x61, 0xe2, 0x82)) + text.end()).toBe('a\ufffd');
  });
});

describe('createFrameReader over SSE: events split anywhere in their UTF-8 arrive whole', () => {
  it('delivers the same messages for a stream fed whole and fed one byte at a time', () => {
    const sse = new TextEncoder().encode(
      'event: content_block_delta\ndata: {"text":"naïve café 😀 日本語"}\n\nevent: ping\ndata: {"type":"ping"}\n\ndata: {"text":"€"}\n\n',
    );
    const read = (chunks: Uint8Array[]) => {
      const got: SseMessage[] = [];
      const reader = createFrameReader(
        anthropicMessagesCodec,
        (m) => got.push(m),
        () => {},
      );
      for (const c of chunks) reader.feed(c);
      reader.end();
      return got;
    };
    const whole = read([sse]);
    expect(whole.map((m) => m.data)).toEqual(['{"text":"naïve café 😀 日本語"}', '{"type":"ping"}', '{"text":"€"}']);
    expect(read([...sse].map((b) => Uint8Array.of(b)))).toEqual(whole);
  });
});
