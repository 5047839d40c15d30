/**
 * The store's Lua scripts. Each runs atomically on the server and reads the server's clock
 * (TIME), never a replica's. Holds live in a zset per constraint (id → expiry) with a hash of
 * amounts whose "" field is their running sum; expired holds are dropped (and subtracted)
 * by the next script that touches the constraint, so they stop counting at once. Numbers that
 * go back into Redis commands are formatted with %d or passed through as the caller's strings
 * (Lua's default number formatting would turn large values into exponent notation).
 */

const PRELUDE = `
local GRACE = 60000
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function ms(n) return string.format('%d', n) end
local function limit_of(s) if s == 'inf' then return math.huge end return tonumber(s) end
local function drop(h, a, id)
  local amt = redis.call('HGET', a, id)
  if amt then
    redis.call('HDEL', a, id)
    if amt ~= '0' then redis.call('HINCRBY', a, '', '-' .. amt) end
  end
  redis.call('ZREM', h, id)
end
local function tidy(h, a)
  if redis.call('EXISTS', h) == 0 then redis.call('DEL', a) end
end
local function purge(h, a, now)
  local ids = redis.call('ZRANGEBYSCORE', h, '-inf', ms(now))
  for _, id in ipairs(ids) do drop(h, a, id) end
  if #ids > 0 then tidy(h, a) end
  return ids
end
local function held(a) return tonumber(redis.call('HGET', a, '') or '0') end
local function extend(h, a, e, now)
  local pt = redis.call('PTTL', h)
  if pt < 0 or now + pt < e + GRACE then
    redis.call('PEXPIREAT', h, ms(e + GRACE))
    redis.call('PEXPIREAT', a, ms(e + GRACE))
  end
end
local function base_of(rec, id) return string.sub(rec, 1, #rec - #id - 2) end
local function release_hold(rec, id)
  local k = redis.call('HGET', rec, 'k')
  if not k then return 0 end
  local base = base_of(rec, id)
  for _, ck in ipairs(cjson.decode(k)) do
    local h, a = base .. 'h:' .. ck, base .. 'a:' .. ck
    drop(h, a, id)
    tidy(h, a)
  end
  redis.call('DEL', rec)
  return 1
end
-- Reserve: KEYS[k0+1] hold record, KEYS[k0+2] index, then (h, a) per constraint, then the
-- distinct counter keys. ARGV[a0+1..] id, amount, ttl ms, n, then per constraint: key, limit
-- ('inf' for none), amount held on it ('' for the reservation's), soft ('1' or '0'), m, m
-- counter positions (1-based into the counter keys).
-- Returns {1, soft constraints passed (their indices)...} admitted, {-1} already held,
-- {0, i, committed, held} refused by constraint i.
local function reserve_hold(now, k0, a0)
  local rec, idx = KEYS[k0 + 1], KEYS[k0 + 2]
  local id, amount, ttl, n = ARGV[a0 + 1], ARGV[a0 + 2], tonumber(ARGV[a0 + 3]), tonumber(ARGV[a0 + 4])
  local e0 = redis.call('HGET', rec, 'e')
  if e0 and tonumber(e0) > now then return {-1} end
  local cbase = k0 + 2 + 2 * n
  local values, cons, amounts, over = {}, {}, {}, {1}
  local p = a0 + 5
  for i = 1, n do
    local ck, lim, amt, soft, m = ARGV[p], limit_of(ARGV[p + 1]), ARGV[p + 2], ARGV[p + 3] == '1', tonumber(ARGV[p + 4])
    if amt == '' then amt = amount end
    p = p + 5
    local h, a = KEYS[k0 + 1 + 2 * i], KEYS[k0 + 2 + 2 * i]
    purge(h, a, now)
    local committed = 0
    for _ = 1, m do
      local ci = tonumber(ARGV[p])
      p = p + 1
      local v = values[ci]
      if v == nil then
        v = tonumber(redis.call('GET', KEYS[cbase + ci]) or '0')
        values[ci] = v
      end
      committed = committed + v
    end
    local hv = held(a)
    if committed + hv + tonumber(amt) > lim then
      if not soft then return {0, i, committed, hv} end
      over[#over + 1] = i
    end
    cons[i] = ck
    amounts[i] = amt
  end
  local e = now + ttl
  local keys, seen = {}, {}
  for i = 1, n do
    local ck = cons[i]
    if not seen[ck] then
      seen[ck] = true
      local h, a = KEYS[k0 + 1 + 2 * i], KEYS[k0 + 2 + 2 * i]
      local amt = amounts[i]
      drop(h, a, id)
      redis.call('ZADD', h, ms(e), id)
      redis.call('HSET', a, id, amt)
      if amt ~= '0' then redis.call('HINCRBY', a, '', amt) end
      extend(h, a, e, now)
      redis.call('SADD', idx, ck)
      keys[#keys + 1] = ck
    end
  end
  redis.call('DEL', rec)
  redis.call('HSET', rec, 'a', amount, 'e', ms(e), 'k', cjson.encode(keys))
  redis.call('PEXPIREAT', rec, ms(e))
  return over
end
-- Rate, fixed windows, all or nothing: KEYS[k0+1..k0+n] one bucket key each, ARGV[a0+1..]
-- limit, window ms, cost per bucket. Returns nil and the window start of each bucket when
-- taken, {i, retry-after ms} when bucket i is full.
local function take_rate(now, k0, n, a0)
  local function used(key, start, w)
    local f = redis.call('HMGET', key, 's', 'w', 'u')
    if f[1] == ms(start) and f[2] == w then return tonumber(f[3]) end
    return 0
  end
  local pending = {}
  for i = 1, n do
    local key, lim, w, cost = KEYS[k0 + i], limit_of(ARGV[a0 + 3 * i - 2]), ARGV[a0 + 3 * i - 1], tonumber(ARGV[a0 + 3 * i])
    local wn = tonumber(w)
    local start = math.floor(now / wn) * wn
    local taken = pending[key] or 0
    local u = used(key, start, w) + taken
    if u + cost > lim or (cost == 0 and u >= lim) then
      return {i, math.max(1, math.ceil(start + wn - now))}
    end
    pending[key] = taken + cost
  end
  local starts = {}
  for i = 1, n do
    local key, w, cost = KEYS[k0 + i], ARGV[a0 + 3 * i - 1], tonumber(ARGV[a0 + 3 * i])
    local wn = tonumber(w)
    local start = math.floor(now / wn) * wn
    local u = used(key, start, w) + cost
    redis.call('HSET', key, 's', ms(start), 'w', w, 'u', ms(u))
    redis.call('PEXPIREAT', key, ms(start + wn + 1000))
    starts[i] = start
  end
  return nil, starts
end
-- Move bucket KEYS[k] by delta units if it still counts the window (start, w); never below 0.
local function adjust_rate(key, w, start, delta)
  local f = redis.call('HMGET', key, 's', 'w', 'u')
  if f[1] == start and f[2] == w then
    local u = tonumber(f[3]) + tonumber(delta)
    if u < 0 then u = 0 end
    redis.call('HSET', key, 'u', ms(u))
  end
end
`;

/**
 * KEYS: hold record, index, then (h, a) per constraint, then the distinct counter keys.
 * ARGV: id, amount, ttl ms, n, then per constraint: key, limit ('inf' for none), amount held
 * ('' for the reservation's), soft ('1'/'0'), m, m counter positions (1-based into the counter keys).
 * Returns {1, indices of soft constraints passed...} admitted, {-1} already held,
 * {0, i, committed, held} refused by constraint i.
 */
export const RESERVE = `${PRELUDE}
return reserve_hold(now_ms(), 0, 0)
`;

/** KEYS: hold record. ARGV: id, ttl ms. Returns 1 when a live hold was extended. */
export const RENEW = `${PRELUDE}
local rec, id, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = now_ms()
local f = redis.call('HMGET', rec, 'e', 'k')
if not f[1] or tonumber(f[1]) <= now then return 0 end
local base = base_of(rec, id)
local e = now + ttl
for _, ck in ipairs(cjson.decode(f[2])) do
  local h, a = base .. 'h:' .. ck, base .. 'a:' .. ck
  redis.call('ZADD', h, 'XX', ms(e), id)
  extend(h, a, e, now)
end
redis.call('HSET', rec, 'e', ms(e))
redis.call('PEXPIREAT', rec, ms(e))
return 1
`;

/** KEYS: hold record. ARGV: id. Drops the hold, live or lapsed. */
export const RELEASE = `${PRELUDE}
return release_hold(KEYS[1], ARGV[1])
`;

/**
 * KEYS: hold record, settled marker, one counter key per charge, then one bucket key per rate
 * adjustment. ARGV: id, settled ttl ms, counter ttl ms ('' to keep), the number of charges nc,
 * an amount and a ttl ms ('' for the counter ttl) per charge, then window ms, window start and
 * delta per adjustment.
 * Returns 1 when charged, 0 when this id was already settled (nothing changes then).
 */
export const SETTLE = `${PRELUDE}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
release_hold(KEYS[1], ARGV[1])
local nc = tonumber(ARGV[4])
for i = 1, nc do
  redis.call('INCRBY', KEYS[2 + i], ARGV[3 + 2 * i])
  local ttl = ARGV[4 + 2 * i]
  if ttl == '' then ttl = ARGV[3] end
  if ttl ~= '' then redis.call('PEXPIRE', KEYS[2 + i], ttl) end
end
for j = 1, #KEYS - 2 - nc do
  local a = 4 + 2 * nc + 3 * (j - 1)
  adjust_rate(KEYS[2 + nc + j], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1
`;

/** KEYS: (h, a) per constraint. Returns the live held sum of each. */
export const HELD = `${PRELUDE}
local now = now_ms()
local out = {}
for i = 1, #KEYS, 2 do
  purge(KEYS[i], KEYS[i + 1], now)
  out[#out + 1] = held(KEYS[i + 1])
end
return out
`;

/**
 * Fixed windows, all or nothing. KEYS: one bucket key per bucket. ARGV: limit, window ms,
 * cost per bucket. Returns {0, window start per bucket} when taken, {i, retry-after ms} when
 * bucket i is full.
 */
export const HIT_RATE = `${PRELUDE}
local full, starts = take_rate(now_ms(), 0, #KEYS, 0)
if full then return full end
local out = {0}
for _, s in ipairs(starts) do out[#out + 1] = s end
return out
`;

/**
 * Admission in one step. KEYS: nb bucket keys, nc counter keys, then (when reserving) the
 * RESERVE keys. ARGV: nb, nc, '1' to reserve or '0', the HIT_RATE args, then the RESERVE args.
 * Returns {-1} when the reservation id is already held (nothing taken), {1, i, retry-after ms}
 * when bucket i is full (nothing read or reserved), else {0, the nc counter values, the nb
 * window starts, then the RESERVE result when reserving}.
 */
export const ADMIT = `${PRELUDE}
local now = now_ms()
local nb, nc, reserving = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1'
local r0 = 3 + 3 * nb
if reserving then
  local e0 = redis.call('HGET', KEYS[nb + nc + 1], 'e')
  if e0 and tonumber(e0) > now then return {-1} end
end
local full, starts = take_rate(now, 0, nb, 3)
if full then return {1, full[1], full[2]} end
local out = {0}
for i = 1, nc do out[#out + 1] = redis.call('GET', KEYS[nb + i]) or '0' end
for i = 1, nb do out[#out + 1] = starts[i] end
if reserving then
  for _, v in ipairs(reserve_hold(now, nb + nc, r0)) do out[#out + 1] = v end
end
return out
`;

/**
 * KEYS: index. ARGV: cursor, count. Drops expired holds from one SSCAN page of constraints
 * and forgets constraints without holds. Returns {next cursor, distinct holds dropped}.
 */
export const SWEEP = `${PRELUDE}
local idx = KEYS[1]
local base = string.sub(idx, 1, #idx - 1)
local now = now_ms()
local page = redis.call('SSCAN', idx, ARGV[1], 'COUNT', ARGV[2])
local removed, seen = 0, {}
for _, ck in ipairs(page[2]) do
  local h, a = base .. 'h:' .. ck, base .. 'a:' .. ck
  for _, id in ipairs(purge(h, a, now)) do
    if not seen[id] then
      seen[id] = true
      removed = removed + 1
    end
  end
  if redis.call('EXISTS', h) == 0 then redis.call('SREM', idx, ck) end
end
return {page[1], removed}
`;
