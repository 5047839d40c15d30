import { describe, expect, it } from 'vitest';
import { DeferredWork } from './deferred.js';

describe('DeferredWork', () => {
  it('runs queued work on one later turn, not in line, in order', async () => {
    const scheduled: Array<() => void> = [];
    const work = new DeferredWork(100, (run) => void scheduled.push(run));
    const done: number[] = [];
    work.add(() => done.push(1));
    work.add(() => done.push(2));
    expect(done).toEqual([]);
    // One turn for everything queued meanwhile.
    expect(scheduled).toHaveLength(1);
    scheduled[0]!();
    expect(done).toEqual([1, 2]);
    work.add(() => done.push(3));
    expect(scheduled).toHaveLength(2);
  });

  it('is bounded: a caller that never yields gets the queue run in line once it is full', () => {
    const work = new DeferredWork(10, () => {});
    let ran = 0;
    for (let i = 0; i < 1000; i++) {
      work.add(() => void ran++);
      expect(work.pending).toBeLessThan(10);
    }
    expect(ran).toBe(1000 - work.pending);
  });

  it('a throwing item does not stop the others; drain() and idle() see everything handed over', async () => {
    const work = new DeferredWork(100, () => {});
    const done: string[] = [];
    work.add(() => {
      throw new Error('sdk trouble');
    });
    work.add(() => done.push('after'));
    let idle = false;
    const waiting = work.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    work.drain();
    await waiting;
    expect(done).toEqual(['after']);
    expect(idle).toBe(true);
    await expect(work.idle()).resolves.toBeUndefined();
  });

  it('uses the runtime’s own turn by default', async () => {
    const work = new DeferredWork();
    let ran = false;
    work.add(() => (ran = true));
    expect(ran).toBe(false);
    await work.idle();
    expect(ran).toBe(true);
  });
});
