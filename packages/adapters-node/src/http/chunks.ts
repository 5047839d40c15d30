import type { Readable } from 'node:stream';

export interface ChunkReaderOptions {
  /** True once the whole body has arrived (then a `read()` that finds nothing means the end). */
  arrived(): boolean;
  /** The error when the stream closes before its end. */
  closedEarly(): Error;
  /** Called by `return()`: give the stream up (or leave it alone). */
  onReturn(): void;
}

/**
 * Chunks of a Node stream, pulled with `read()`: what the stream holds is taken at once (a body
 * that came whole needs no waiting, nor any listener), otherwise the next `readable` is awaited; the stream's own
 * async iteration (an end-of-stream watcher and an iterator per body) costs more than the read
 * itself for the usual small body. It fails when the stream errors or closes before its end, is
 * done as soon as the whole body arrived and was read — without waiting for `end`, whose other
 * listeners (keep-alive bookkeeping) run first — and `return()` works before the first `next()`
 * and while one is pending.
 */
export function chunkReader(source: Readable, options: ChunkReaderOptions): AsyncIterator<Buffer> {
  let ended = false;
  let given = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  let listening = false;
  const rouse = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const onEnd = () => {
    ended = true;
    rouse();
  };
  const onError = (error: unknown) => {
    failure ??= error;
    rouse();
  };
  const onClose = () => {
    if (!ended) failure ??= options.closedEarly();
    rouse();
  };
  const listen = () => {
    listening = true;
    // Over before the first read (aborted, failed, or ended): say so now, no event will.
    if (source.readableEnded) ended = true;
    else if (source.destroyed) failure = source.errored ?? options.closedEarly();
    source.on('readable', rouse);
    source.on('end', onEnd);
    source.on('error', onError);
    source.on('close', onClose);
  };
  // Once over, the stream is left as found: with a 'readable' listener attached, Node could not
  // drain an unread rest (`resume()` does nothing then).
  const detach = () => {
    if (!listening) return;
    source.off('readable', rouse);
    source.off('end', onEnd);
    source.off('error', onError);
    source.off('close', onClose);
  };
  return {
    async next(): Promise<IteratorResult<Buffer>> {
      if (given) return { done: true, value: undefined };
      if (!listening) {
        // What already arrived is taken without listening (the usual small body came whole):
        // listeners are attached only to wait, or to see how a stream that is over ended.
        if (!source.destroyed && !source.readableEnded) {
          const chunk = source.read() as Buffer | null;
          if (chunk !== null) return { done: false, value: chunk };
          if (options.arrived()) return { done: true, value: undefined };
        }
        listen();
      }
      for (;;) {
        if (given) return { done: true, value: undefined };
        const chunk = source.read() as Buffer | null;
        if (chunk !== null) return { done: false, value: chunk };
        if (failure !== null) {
          detach();
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- the socket's own error, passed on as it came
          throw failure;
        }
        if (ended || options.arrived()) {
          detach();
          return { done: true, value: undefined };
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async return(): Promise<IteratorResult<Buffer>> {
      given = true;
      detach();
      options.onReturn();
      rouse();
      return { done: true, value: undefined };
    },
  };
}
