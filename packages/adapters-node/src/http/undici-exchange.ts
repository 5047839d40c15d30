/**
 * One upstream call over undici: the dispatch handler, the promise of the answer's head, and its
 * body as a bounded chunk queue. Used by `createNodeUpstream` (upstream.ts) for the calls undici
 * carries.
 */
import { createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import type { HeaderReader, UpstreamResponse } from '@tollgate/core';
import { BodyQueue, type BodyQueueLimits } from './body-queue.js';
import { UpstreamTimeoutError, type Deadlines } from './deadlines.js';

const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** What a decoded body no longer has: its encoding and its encoded length. */
const DECODED_AWAY = new Set(['content-encoding', 'content-length']);

type Decoder = Gunzip | Inflate | BrotliDecompress;

function decoderFor(encoding: string | undefined): Decoder | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

/**
 * A header from undici's raw head (`[name, value, …]` as bytes, names in the case the upstream
 * sent them; `name` lowercase), repeated ones joined with `, `.
 */
function rawHeader(raw: readonly Buffer[], name: string): string | null {
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length !== name.length || key.toString('latin1').toLowerCase() !== name) continue;
    const value = raw[i + 1]!.toString('latin1');
    found = found === null ? value : `${found}, ${value}`;
  }
  return found;
}

/** The head as the gateway reads it: lookups by name, straight from the raw head. */
function headerReader(raw: readonly Buffer[], decoded: boolean): HeaderReader {
  const get = (name: string): string | null => {
    const lower = name.toLowerCase();
    return decoded && DECODED_AWAY.has(lower) ? null : rawHeader(raw, lower);
  };
  return { get, has: (name) => get(name) !== null };
}

/** `fetch` reports network failures as a TypeError whose `cause` is the underlying error. */
function networkError(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The fixed parts of every call of one transport. */
export interface Bounds {
  headersMs: number;
  attemptMs: number;
  limits: BodyQueueLimits;
  deadlines: Deadlines;
}

/**
 * One call: undici's handler, and the promise of the answer's head. The head resolves the call;
 * the body goes to a `BodyQueue` the gateway reads.
 *
 * It implements the handler interface undici's own core calls (`onConnect`, `onHeaders`,
 * `onData`, `onComplete`, `onError`; typed as deprecated in favour of the controller-based one,
 * which undici adapts onto these at the cost of a controller and a parsed header object per
 * answer — measurable on the gateway's hot path, BENCHMARKS.md).
 */
export class Exchange implements Dispatcher.DispatchHandler {
  private abortCall: ((error?: Error) => void) | null = null;
  private resumeCall: (() => void) | null = null;
  private body: BodyQueue | null = null;
  private decoder: Decoder | null = null;
  private answered = false;
  private over = false;
  /** Why the call was given up before undici could take an abort. */
  private pendingAbort: Error | null = null;
  private readonly started = performance.now();
  /** When the current bound runs out (`performance.now()` ms): the head's, then the whole call's. */
  deadline: number;
  deadlineSlot = -1;
  private onAbort: (() => void) | null = null;

  /** The caller's promise, let go once the call is over (as the built-in client's exchange does). */
  private caller: { resolve(answer: UpstreamResponse): void; reject(error: unknown): void } | null;
  private signal: AbortSignal | undefined;

  constructor(
    private readonly bounds: Bounds,
    resolve: (answer: UpstreamResponse) => void,
    reject: (error: unknown) => void,
    signal: AbortSignal | undefined,
    private readonly redirectError: boolean,
  ) {
    this.caller = { resolve, reject };
    this.signal = signal;
    this.deadline = this.started + Math.min(bounds.headersMs, bounds.attemptMs);
    bounds.deadlines.add(this);
    if (signal !== undefined) {
      this.onAbort = () => this.giveUp(abortReason(signal) as Error);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortCall = abort;
    if (this.pendingAbort !== null) abort(this.pendingAbort);
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // Interim heads (102, 103…) change nothing: the deadline for the final head still runs.
    if (status < 200 || this.over) return true;
    if (this.redirectError && REDIRECT.has(status)) {
      const location = rawHeader(rawHeaders, 'location');
      if (location !== null) {
        this.giveUp(networkError(new Error(`unexpected redirect (${status}) to ${location}`)));
        return false;
      }
    }
    this.answered = true;
    // From the head on, only the whole call's deadline is left.
    this.deadline = this.started + this.bounds.attemptMs;
    this.resumeCall = resume;
    const hasBody = !NULL_BODY.has(status);
    const decoder = hasBody ? decoderFor(rawHeader(rawHeaders, 'content-encoding') ?? undefined) : null;
    const body = hasBody ? new BodyQueue(this.bounds.limits) : null;
    this.body = body;
    if (body !== null) {
      body.onRoom = () => {
        if (this.decoder !== null) this.decoder.resume();
        else resume();
      };
      body.onGiveUp = () => this.giveUp(new Error('the gateway gave the body up'));
      if (decoder !== null) this.decode(decoder, body);
    }
    this.caller?.resolve({
      // Statuses outside what a response can carry are the upstream's fault.
      status: status > 599 ? 502 : status,
      headers: headerReader(rawHeaders, decoder !== null),
      body,
    });
    return true;
  }

  /** A chunk of the body; false pauses the connection until the body has room again. */
  onData(chunk: Buffer): boolean {
    if (this.over) return true;
    if (this.decoder !== null) return this.decoder.write(chunk);
    return this.body === null || this.body.push(chunk);
  }

  onComplete(): void {
    if (this.over) return;
    this.finish();
    if (this.decoder !== null) this.decoder.end();
    else this.body?.end();
    this.letGo();
  }

  onError(error: Error): void {
    if (this.over) return;
    this.finish();
    this.fail(error);
    this.letGo();
  }

  /** Over: nothing of the caller's is kept (a closure the body queue keeps may still point here). */
  private letGo(): void {
    this.caller = null;
    this.signal = undefined;
  }

  /** Fail whatever is not over: the call before the head, the body after it. */
  private fail(error: unknown): void {
    if (!this.answered) {
      this.answered = true;
      const signal = this.signal;
      this.caller?.reject(signal?.aborted === true ? abortReason(signal) : error instanceof TypeError ? error : networkError(error));
    } else if (this.decoder !== null) {
      this.decoder.destroy();
      this.body?.fail(error);
    } else this.body?.fail(error);
  }

  /** Stop the call: `error` is what the caller sees (the signal's reason when it was aborted). */
  private giveUp(error: Error): void {
    if (this.over) return;
    this.finish();
    this.fail(error);
    this.letGo();
    if (this.abortCall !== null) this.abortCall(error);
    else this.pendingAbort = error;
  }

  /** The current bound ran out (called by `Deadlines`). */
  expire(): void {
    const head = !this.answered && this.bounds.headersMs < this.bounds.attemptMs;
    this.giveUp(new UpstreamTimeoutError(head ? 'headers' : 'attempt', head ? this.bounds.headersMs : this.bounds.attemptMs));
  }

  private finish(): void {
    this.over = true;
    this.bounds.deadlines.delete(this);
    if (this.onAbort !== null) {
      this.signal!.removeEventListener('abort', this.onAbort);
      this.onAbort = null;
    }
  }

  /** A compressed body: the raw bytes go through the decoder, what it gives goes to the body. */
  private decode(decoder: Decoder, body: BodyQueue): void {
    this.decoder = decoder;
    decoder.on('data', (chunk: Buffer) => {
      if (!body.push(chunk)) decoder.pause();
    });
    decoder.on('drain', () => this.resumeCall?.());
    decoder.once('end', () => body.end());
    decoder.once('error', (error) => {
      body.fail(error);
      if (!this.over) this.giveUp(error);
    });
  }
}
