import { StoreUnavailableError } from '@tollgate/core';
import type { AdmitRequest, AdmitResult, RateBucket, RateResult, ReserveRequest, ReserveResult, SettleRequest, StateStore } from '@tollgate/core';
import { Redis } from 'ioredis';
import { toStoreError } from './errors.js';
import { DEFAULT_TAG, KeyLayout, type HashTagOption } from './keys.js';
import { ADMIT, HELD, HIT_RATE, RELEASE, RENEW, RESERVE, SETTLE, SWEEP } from './lua.js';
import { LuaScript, type RedisClient } from './script.js';
import { checkBuckets, checkDuration, checkKey, checkReserve, checkSettle, limitArg, wholeMs } from './validate.js';

export interface RedisStoreOptions {
  /** Connection URL (default `redis://127.0.0.1:6379`); ignored when `client` is given. */
  url?: string;
  /**
   * An existing ioredis client (standalone or Cluster). The store neither reconfigures nor
   * quits it; give it `enableOfflineQueue: false` and a low `maxRetriesPerRequest` so calls
   * fail fast while Redis is away.
   */
  client?: RedisClient;
  /** Prefix of every key (default `tg:`). */
  keyPrefix?: string;
  /**
   * The Redis Cluster hash tag. A string (default `tg`) puts every key in one slot. A function
   * tags each logical key (constraint, counter, bucket and marker keys; reservation ids when
   * nothing else names a tag), e.g. per tenant with `hashTagFromKey()`; the keys of one
   * reserve, settle or hitRate must then share a tag, or the call rejects.
   */
  hashTag?: HashTagOption;
  /** Period of the background sweeper in ms; 0 disables it (default 30 000). */
  sweepIntervalMs?: number;
  /** How long a settled id is remembered so a repeated settle is a no-op (default 15 min). */
  settledTtlMs?: number;
  /** Per-command timeout of the client this store creates (default 1000 ms). */
  commandTimeoutMs?: number;
  /** How long the first call waits for the initial connection (default 2000 ms). */
  connectTimeoutMs?: number;
  /** Connection errors and sweeper failures (default: one console warning per outage). */
  onError?: (error: unknown) => void;
}

export interface RedisStore extends StateStore {
  /** The ioredis client in use. */
  readonly client: RedisClient;
  /**
   * Resolves when Redis answers a PING; rejects with `StoreUnavailableError` saying why when it
   * cannot be reached (waiting at most `connectTimeoutMs` for a first connection). `tollgate
   * serve` uses it for `/readyz`.
   */
  ping(): Promise<void>;
}

const DEFAULT_SWEEP_MS = 30_000;
const DEFAULT_SETTLED_TTL_MS = 15 * 60_000;
/** Pointers outlive the hold they point to by this much. */
const POINTER_GRACE_MS = 60_000;
const SWEEP_PAGE = 200;

/** Every logical key a reservation touches (they must share one hash tag). */
function reserveKeys(request: ReserveRequest): string[] {
  return request.constraints.flatMap((c) => [c.key, ...c.counters]);
}

/** The RESERVE script's keys and arguments under `base`. */
function reservePlan(request: ReserveRequest, base: string): { keys: string[]; args: (string | number)[] } {
  const { id, constraints } = request;
  const counterKeys: string[] = [];
  const position = new Map<string, number>();
  const keys = [`${base}r:${id}`, `${base}i`];
  const args: (string | number)[] = [id, String(request.amount), wholeMs(request.ttlMs), constraints.length];
  const perConstraint: (string | number)[] = [];
  for (const c of constraints) {
    keys.push(`${base}h:${c.key}`, `${base}a:${c.key}`);
    const counters = [...new Set(c.counters)];
    perConstraint.push(c.key, limitArg(c.limit), c.amount === undefined ? '' : String(c.amount), c.soft === true ? '1' : '0', counters.length);
    for (const counter of counters) {
      let at = position.get(counter);
      if (at === undefined) {
        counterKeys.push(`${base}c:${counter}`);
        at = counterKeys.length;
        position.set(counter, at);
      }
      perConstraint.push(at);
    }
  }
  keys.push(...counterKeys);
  args.push(...perConstraint);
  return { keys, args };
}

/** What the RESERVE script answered, as a `ReserveResult`. */
function reserveOutcome(request: ReserveRequest, reply: readonly unknown[]): ReserveResult {
  const [status, index, committed, held] = reply.map(Number) as [number, number?, number?, number?];
  if (status === 1) {
    if (reply.length === 1) return { ok: true };
    const over = [...new Set(reply.slice(1).map((i) => request.constraints[Number(i) - 1]!.key))];
    return { ok: true, over };
  }
  if (status === -1) throw new Error(`tollgate store: reservation ${request.id} is already held`);
  const refused = request.constraints[(index ?? 1) - 1]!;
  return { ok: false, key: refused.key, limit: refused.limit, committed: committed ?? 0, held: held ?? 0 };
}

/** The HIT_RATE script's arguments: limit, window ms and cost per bucket. */
function rateArgs(buckets: readonly RateBucket[]): string[] {
  return buckets.flatMap((b) => [limitArg(b.limit), String(wholeMs(b.windowMs)), String(b.cost)]);
}

const scripts = {
  reserve: new LuaScript(RESERVE),
  renew: new LuaScript(RENEW),
  release: new LuaScript(RELEASE),
  settle: new LuaScript(SETTLE),
  held: new LuaScript(HELD),
  hitRate: new LuaScript(HIT_RATE),
  admit: new LuaScript(ADMIT),
  sweep: new LuaScript(SWEEP),
};

/**
 * The shared state store for many replicas. Every decision is one Lua script, atomic on the
 * server and timed by the server's clock; holds are kept apart from committed counters and
 * stop counting the moment they expire; committed counters only grow. When Redis cannot be
 * reached, calls reject quickly with `StoreUnavailableError`, and the client reconnects by
 * itself.
 */
export function createRedisStore(options: RedisStoreOptions = {}): RedisStore {
  const layout = new KeyLayout(options.keyPrefix ?? 'tg:', options.hashTag ?? DEFAULT_TAG);
  const sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_MS;
  const settledTtlMs = wholeMs(options.settledTtlMs ?? DEFAULT_SETTLED_TTL_MS);
  checkDuration('settledTtlMs', settledTtlMs);
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;

  const owned = options.client === undefined;
  const client: RedisClient =
    options.client ??
    new Redis(options.url ?? 'redis://127.0.0.1:6379', {
      // Fail fast while disconnected (the gateway then applies its failure semantics) and
      // keep reconnecting in the background.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      connectTimeout: connectTimeoutMs,
      retryStrategy: (times) => Math.min(times * 100, 1000),
    });

  let everReady = client.status === 'ready';
  let warned = false;
  /** The last connection error seen, to say why Redis cannot be reached. */
  let lastError: Error | undefined;
  const onError = (error: unknown): void => {
    if (error instanceof Error) lastError = error;
    if (options.onError !== undefined) {
      options.onError(error);
      return;
    }
    if (warned) return;
    warned = true;
    const message = error instanceof Error ? error.message : String(error);
    console.warn(`[tollgate] redis store: ${message}; calls fail with StoreUnavailableError until it reconnects`);
  };
  const onReady = (): void => {
    everReady = true;
    warned = false;
  };
  client.on('ready', onReady);
  if (owned || options.onError !== undefined) client.on('error', onError);

  let closed = false;
  let readyWait: Promise<void> | undefined;

  /** Before the first connection, wait for it (bounded); afterwards never wait. */
  const waitForFirstConnection = (): Promise<void> | undefined => {
    if (everReady || client.status === 'ready') return undefined;
    const status = client.status;
    if (status === 'wait') void client.connect().catch(() => {});
    else if (status !== 'connecting' && status !== 'connect') return undefined;
    // Resolves on the first outcome: ready, a connection error (the call then fails at
    // once), or the timeout.
    readyWait ??= new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        client.off('ready', done);
        client.off('error', done);
        readyWait = undefined;
        resolve();
      };
      const timer = setTimeout(done, connectTimeoutMs);
      client.once('ready', done);
      client.once('error', done);
    });
    return readyWait;
  };

  /** Run one backend call, mapping failures to the store's error types. */
  const call = async <T>(op: string, fn: () => Promise<T>): Promise<T> => {
    if (closed) throw new StoreUnavailableError(`tollgate redis store is closed (${op} after close())`);
    const wait = waitForFirstConnection();
    if (wait !== undefined) await wait;
    try {
      return await fn();
    } catch (error) {
      throw toStoreError(error, op);
    }
  };

  const run = (op: string, script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> => call(op, () => script.run(client, keys, args));

  /** Per-key tags: which tag holds reservation `id` (null when none is known). */
  const pointedTag = (op: string, id: string): Promise<string | null> => call(op, () => client.get(layout.pointer(id)));

  const releaseAt = (tag: string, id: string): Promise<unknown> => run('release', scripts.release, [`${layout.base(tag)}r:${id}`], [id]);

  const sweepTag = async (tag: string): Promise<number> => {
    const idx = `${layout.base(tag)}i`;
    let cursor = '0';
    let removed = 0;
    do {
      const [next, count] = (await run('sweep', scripts.sweep, [idx], [cursor, SWEEP_PAGE])) as [string, number];
      cursor = String(next);
      removed += Number(count);
    } while (cursor !== '0');
    return removed;
  };

  const sweep = async (): Promise<number> => {
    const tags = layout.fixed ? [layout.tagOf('')] : await call('sweep', () => client.smembers(layout.tags()));
    let removed = 0;
    for (const tag of tags) {
      removed += await sweepTag(tag);
      if (!layout.fixed) {
        const empty = (await call('sweep', () => client.exists(`${layout.base(tag)}i`))) === 0;
        if (empty) await call('sweep', () => client.srem(layout.tags(), tag));
      }
    }
    return removed;
  };

  /**
   * Where a reservation's hold lives, for per-key tags (nothing to do with one fixed tag):
   * written alongside the script, so a reservation stays one round trip.
   */
  const holdBookkeeping = (op: string, request: ReserveRequest, tag: string): Promise<unknown>[] =>
    layout.fixed
      ? []
      : [
          call(op, () => client.set(layout.pointer(request.id), tag, 'PX', wholeMs(request.ttlMs) + POINTER_GRACE_MS)),
          call(op, () => client.sadd(layout.tags(), tag)),
        ];

  /** A reservation that was not made leaves no pointer behind (refusals would pile them up). */
  const forgetHold = async (op: string, id: string): Promise<void> => {
    if (!layout.fixed) await call(op, () => client.del(layout.pointer(id))).catch(() => {});
  };

  let timer: ReturnType<typeof setInterval> | undefined;
  if (sweepIntervalMs > 0) {
    timer = setInterval(() => {
      if (!closed && client.status === 'ready') sweep().catch(onError);
    }, sweepIntervalMs);
    timer.unref();
  }

  const store: RedisStore = {
    client,

    async reserve(request: ReserveRequest): Promise<ReserveResult> {
      checkReserve(request);
      const tag = layout.commonTag(reserveKeys(request), `reserve ${request.id}`) ?? layout.tagOf(request.id);
      const plan = reservePlan(request, layout.base(tag));
      const [result] = (await Promise.all([run('reserve', scripts.reserve, plan.keys, plan.args), ...holdBookkeeping('reserve', request, tag)])) as [
        unknown[],
        ...unknown[],
      ];
      if (Number(result[0]) === 0) await forgetHold('reserve', request.id);
      return reserveOutcome(request, result);
    },

    async renew(id: string, ttlMs: number): Promise<boolean> {
      checkKey('renew id', id);
      checkDuration('renew ttlMs', ttlMs);
      const ttl = wholeMs(ttlMs);
      const tag = layout.fixed ? layout.tagOf(id) : await pointedTag('renew', id);
      if (tag === null) return false;
      const renewed = Number(await run('renew', scripts.renew, [`${layout.base(tag)}r:${id}`], [id, ttl])) === 1;
      if (renewed && !layout.fixed) {
        await call('renew', () => client.pexpire(layout.pointer(id), ttl + POINTER_GRACE_MS));
      }
      return renewed;
    },

    async settle(request: SettleRequest): Promise<boolean> {
      checkSettle(request);
      const { id, charges } = request;
      const counterKeys = charges.map((c) => c.counter);
      // Bucket corrections ride along only under the charges' tag (one atomic script); a bucket
      // tagged apart keeps what it took (the conservative side), it never splits the settle.
      let rate = request.rate ?? [];
      let chargeTag: string | undefined;
      try {
        chargeTag = layout.commonTag([...counterKeys, ...rate.map((a) => a.key)], `settle ${id}`);
      } catch {
        rate = [];
        chargeTag = layout.commonTag(counterKeys, `settle ${id}`);
      }
      const holdTag = layout.fixed ? null : await pointedTag('settle', id);
      const tag = chargeTag ?? holdTag ?? layout.tagOf(id);
      const base = layout.base(tag);
      const keys = [`${base}r:${id}`, `${base}s:${id}`, ...charges.map((c) => `${base}c:${c.counter}`), ...rate.map((a) => `${base}w:${a.key}`)];
      const ttl = request.counterTtlMs === undefined ? '' : wholeMs(request.counterTtlMs);
      const args: (string | number)[] = [id, settledTtlMs, ttl, charges.length];
      for (const c of charges) args.push(String(c.amount), c.ttlMs === undefined ? '' : wholeMs(c.ttlMs));
      for (const a of rate) args.push(String(wholeMs(a.windowMs)), String(a.start), String(a.delta));
      const settled = Number(await run('settle', scripts.settle, keys, args)) === 1;
      if (!layout.fixed && holdTag !== null) {
        // The hold lives under another tag than the charges: drop it there too.
        if (settled && holdTag !== tag) await releaseAt(holdTag, id);
        await call('settle', () => client.del(layout.pointer(id)));
      }
      return settled;
    },

    async release(id: string): Promise<void> {
      checkKey('release id', id);
      const tag = layout.fixed ? layout.tagOf(id) : await pointedTag('release', id);
      if (tag === null) return;
      await releaseAt(tag, id);
      if (!layout.fixed) await call('release', () => client.del(layout.pointer(id)));
    },

    async getCounters(keys: readonly string[]): Promise<Record<string, number>> {
      const out: Record<string, number> = {};
      if (keys.length === 0) return out;
      await Promise.all(
        [...layout.groupByTag(keys)].map(async ([tag, positions]) => {
          const base = layout.base(tag);
          const values = await call('getCounters', () => client.mget(positions.map((i) => `${base}c:${keys[i]!}`)));
          positions.forEach((i, j) => {
            out[keys[i]!] = values[j] == null ? 0 : Number(values[j]);
          });
        }),
      );
      return out;
    },

    async getHeld(keys: readonly string[]): Promise<Record<string, number>> {
      const out: Record<string, number> = {};
      if (keys.length === 0) return out;
      await Promise.all(
        [...layout.groupByTag(keys)].map(async ([tag, positions]) => {
          const base = layout.base(tag);
          const redisKeys = positions.flatMap((i) => [`${base}h:${keys[i]!}`, `${base}a:${keys[i]!}`]);
          const values = (await run('getHeld', scripts.held, redisKeys, [])) as number[];
          positions.forEach((i, j) => {
            out[keys[i]!] = Number(values[j] ?? 0);
          });
        }),
      );
      return out;
    },

    async admit(request: AdmitRequest): Promise<AdmitResult | null> {
      checkBuckets(request.buckets);
      const reserve = request.reserve;
      if (reserve !== null) checkReserve(reserve);
      const keys = [...request.buckets.map((b) => b.key), ...request.counters, ...(reserve === null ? [] : reserveKeys(reserve))];
      let tag: string | undefined;
      try {
        tag = layout.commonTag(keys, 'admit');
      } catch {
        return null; // keys under several hash tags cannot share one script: the separate calls
      }
      tag ??= reserve === null ? layout.tagOf('') : layout.tagOf(reserve.id);
      const base = layout.base(tag);
      const redisKeys = [...request.buckets.map((b) => `${base}w:${b.key}`), ...request.counters.map((c) => `${base}c:${c}`)];
      const args: (string | number)[] = [request.buckets.length, request.counters.length, reserve === null ? '0' : '1', ...rateArgs(request.buckets)];
      if (reserve !== null) {
        const plan = reservePlan(reserve, base);
        redisKeys.push(...plan.keys);
        args.push(...plan.args);
      }
      const bookkeeping = reserve === null ? [] : holdBookkeeping('admit', reserve, tag);
      const [reply] = (await Promise.all([run('admit', scripts.admit, redisKeys, args), ...bookkeeping])) as [unknown[], ...unknown[]];
      const status = Number(reply[0]);
      const counters: Record<string, number> = {};
      request.counters.forEach((key, i) => {
        counters[key] = Number(reply[1 + i]);
      });
      const nb = request.buckets.length;
      const starts = status === 0 ? reply.slice(1 + request.counters.length, 1 + request.counters.length + nb).map(Number) : [];
      const reserved = reserve === null || status !== 0 ? null : reply.slice(1 + request.counters.length + nb);
      // Refused by a bucket or a cap: no hold, so no pointer. (Already held: the pointer is that hold's.)
      if (reserve !== null && (status === 1 || (reserved !== null && Number(reserved[0]) === 0))) await forgetHold('admit', reserve.id);
      if (status === -1) throw new Error(`tollgate store: reservation ${reserve?.id ?? ''} is already held`);
      if (status === 1) return { rate: { ok: false, key: request.buckets[Number(reply[1]) - 1]!.key, retryAfterMs: Number(reply[2] ?? 1) } };
      return { rate: { ok: true, windows: starts }, counters, reserve: reserve === null || reserved === null ? null : reserveOutcome(reserve, reserved) };
    },

    async hitRate(buckets: readonly RateBucket[]): Promise<RateResult> {
      checkBuckets(buckets);
      if (buckets.length === 0) return { ok: true, windows: [] };
      const tag = layout.commonTag(
        buckets.map((b) => b.key),
        'hitRate',
      )!;
      const base = layout.base(tag);
      const keys = buckets.map((b) => `${base}w:${b.key}`);
      const args = rateArgs(buckets);
      const reply = ((await run('hitRate', scripts.hitRate, keys, args)) as number[]).map(Number);
      const index = reply[0];
      if (!index) return { ok: true, windows: reply.slice(1) };
      return { ok: false, key: buckets[index - 1]!.key, retryAfterMs: reply[1] ?? 1 };
    },

    async setOnce(key: string, ttlMs: number): Promise<boolean> {
      checkKey('marker key', key);
      checkDuration('marker ttlMs', ttlMs);
      const redisKey = `${layout.base(layout.tagOf(key))}m:${key}`;
      return (await call('setOnce', () => client.set(redisKey, '1', 'PX', wholeMs(ttlMs), 'NX'))) === 'OK';
    },

    async hasMarker(key: string): Promise<boolean> {
      checkKey('marker key', key);
      const redisKey = `${layout.base(layout.tagOf(key))}m:${key}`;
      return (await call('hasMarker', () => client.exists(redisKey))) === 1;
    },

    sweep,

    async ping(): Promise<void> {
      try {
        await call('ping', () => client.ping());
      } catch (error) {
        if (client.status === 'ready' || lastError === undefined) throw error;
        throw new StoreUnavailableError(`tollgate redis store: Redis cannot be reached: ${lastError.message}`, { cause: error });
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      client.off('ready', onReady);
      if (!owned) {
        if (options.onError !== undefined) client.off('error', onError);
        return;
      }
      try {
        if (client.status === 'ready') await client.quit();
        else client.disconnect();
      } catch {
        client.disconnect();
      }
    },
  };
  return store;
}
