import { describe, expect, it } from 'vitest';
import { BodyQueue } from './body-queue.js';

const bytes = (text: string) => Buffer.from(text);

describe('BodyQueue: a body’s unread part, bounded by bytes and by chunks', () => {
  it('says stop at the chunk bound, however small the chunks, and asks for more once read', async () => {
    const queue = new BodyQueue({ maxBytes: 1024, maxChunks: 4 });
    let rooms = 0;
    queue.onRoom = () => void rooms++;
    expect([queue.push(bytes('a')), queue.push(bytes('b')), queue.push(bytes('c'))]).toEqual([true, true, true]);
    expect(queue.push(bytes('d'))).toBe(false);
    expect(queue.buffered).toEqual({ bytes: 4, chunks: 4 });
    // What waits is handed on as one chunk, and the producer is told to go on.
    expect(Buffer.from((await queue.next()).value).toString()).toBe('abcd');
    expect(rooms).toBe(1);
    expect(queue.buffered).toEqual({ bytes: 0, chunks: 0 });
  });

  it('says stop at the byte bound', () => {
    const queue = new BodyQueue({ maxBytes: 8, maxChunks: 100 });
    expect(queue.push(Buffer.alloc(5))).toBe(true);
    expect(queue.push(Buffer.alloc(5))).toBe(false);
  });

  it('hands a chunk straight to a waiting reader, then the end', async () => {
    const queue = new BodyQueue();
    const first = queue.next();
    const second = queue.next();
    queue.push(bytes('x'));
    queue.end();
    expect(Buffer.from((await first).value).toString()).toBe('x');
    expect((await second).done).toBe(true);
  });

  it('gives what arrived before a failure, then the failure', async () => {
    const queue = new BodyQueue();
    queue.push(bytes('part'));
    queue.fail(new Error('cut'));
    expect(Buffer.from((await queue.next()).value).toString()).toBe('part');
    await expect(queue.next()).rejects.toThrow('cut');
  });

  it('return() before the end gives the body up once (the producer closes the connection); after the end it does not', async () => {
    const queue = new BodyQueue();
    let gaveUp = 0;
    queue.onGiveUp = () => void gaveUp++;
    const pending = queue.next();
    await queue.return();
    await queue.return();
    expect((await pending).done).toBe(true);
    expect(gaveUp).toBe(1);
    expect(queue.push(bytes('late'))).toBe(true);
    expect((await queue.next()).done).toBe(true);
    const ended = new BodyQueue();
    ended.onGiveUp = () => void gaveUp++;
    ended.end();
    await ended.return();
    expect(gaveUp).toBe(1);
  });
});
