/**
 * One state store shared by the worker processes of `tollgate serve --workers N` when the config
 * says `store: memory`: the primary process holds the memory store, and each worker's gateway
 * reaches it through a proxy that sends every call over the IPC channel. The memory store runs
 * each call in one synchronous step, so calls from several workers stay atomic, exactly as
 * calls from one process: spend caps and rate limits hold across workers.
 *
 * If the primary goes away, calls fail with `StoreUnavailableError` (spend caps fail closed).
 */
import { StoreUnavailableError, type StateStore } from '@tollgate/core';

/** A message channel: a cluster worker's `process` on one side, its `Worker` on the other. */
export interface Channel {
  send(message: unknown): void;
  /** Listen for messages; returns a function that stops listening. */
  onMessage(listener: (message: unknown) => void): () => void;
  /** Listen for the channel closing; returns a function that stops listening. */
  onClose(listener: () => void): () => void;
}

type Method = Exclude<keyof StateStore, 'close'>;
const METHODS = new Set<string>(['reserve', 'renew', 'settle', 'release', 'getCounters', 'getHeld', 'hitRate', 'admit', 'setOnce', 'hasMarker', 'sweep']);

interface Call {
  t: 'tg-store';
  id: number;
  m: Method;
  a: unknown[];
}

type Reply = { t: 'tg-store-r'; id: number; ok: true; v: unknown } | { t: 'tg-store-r'; id: number; ok: false; e: { name: string; message: string } };

const isCall = (m: unknown): m is Call => typeof m === 'object' && m !== null && (m as Call).t === 'tg-store' && METHODS.has((m as Call).m);
const isReply = (m: unknown): m is Reply => typeof m === 'object' && m !== null && (m as Reply).t === 'tg-store-r';

/** The primary's side: answer one worker's store calls from `store`. Returns a function that stops. */
export function serveStore(store: StateStore, channel: Channel): () => void {
  return channel.onMessage((message) => {
    if (!isCall(message)) return;
    const { id, m, a } = message;
    let result: Promise<unknown>;
    try {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called as fn.apply(store, a) below
      const fn = store[m] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      // A store without the optional `admit` answers null: the gateway then makes the separate calls.
      result = fn === undefined ? Promise.resolve(null) : fn.apply(store, a);
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (v) => channel.send({ t: 'tg-store-r', id, ok: true, v: v === undefined ? null : v } satisfies Reply),
      (error: unknown) =>
        channel.send({
          t: 'tg-store-r',
          id,
          ok: false,
          e: { name: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error) },
        } satisfies Reply),
    );
  });
}

/** A worker's side: a `StateStore` whose every call is answered by the store the primary serves. */
export function createChannelStore(channel: Channel): StateStore {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  let next = 0;
  let gone = false;
  const fail = (message: string) => {
    gone = true;
    for (const p of pending.values()) p.reject(new StoreUnavailableError(message));
    pending.clear();
  };
  const stopMessages = channel.onMessage((message) => {
    if (!isReply(message)) return;
    const p = pending.get(message.id);
    if (p === undefined) return;
    pending.delete(message.id);
    if (message.ok) p.resolve(message.v);
    else {
      // The store's own errors keep their kind: an unavailable store stays unavailable, and a
      // malformed call (RangeError, TypeError) stays one, so settles are not retried for it.
      const e = message.e;
      p.reject(
        e.name === 'StoreUnavailableError'
          ? new StoreUnavailableError(e.message)
          : e.name === 'RangeError'
            ? new RangeError(e.message)
            : e.name === 'TypeError'
              ? new TypeError(e.message)
              : Object.assign(new Error(e.message), { name: e.name }),
      );
    }
  });
  const stopClose = channel.onClose(() => fail('the shared store (the primary process) is gone'));
  const call =
    (m: Method) =>
    (...a: unknown[]) =>
      new Promise<unknown>((resolve, reject) => {
        if (gone) return reject(new StoreUnavailableError('the shared store is closed'));
        const id = ++next;
        pending.set(id, { resolve, reject });
        try {
          channel.send({ t: 'tg-store', id, m, a } satisfies Call);
        } catch (error) {
          pending.delete(id);
          reject(new StoreUnavailableError('the shared store cannot be reached', { cause: error }));
        }
      });
  const store = Object.fromEntries([...METHODS].map((m) => [m, call(m as Method)])) as unknown as StateStore;
  store.close = async () => {
    // The store itself lives on in the primary; this worker only stops using it.
    stopMessages();
    stopClose();
    fail('the shared store is closed');
  };
  return store;
}
