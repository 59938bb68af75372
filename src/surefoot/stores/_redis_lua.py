"""The server-side Lua scripts of :class:`surefoot.stores.RedisStore`.

Every breaker, budget and rate-limit transition is one script, so it is atomic on the server.
Times come only from the server's ``TIME`` (seconds as decimal strings, since Lua numbers
returned to a client are truncated to integers); a host's own clock is never read. Every key a
script writes gets a TTL.

Breaker hash fields: ``st`` (0 closed, 1 open, 2 half-open), ``ep`` (the epoch), ``f``/``c``
(failures and calls), ``ou`` (open until), ``pu`` (probe reserved until). A new breaker's epoch
starts at the server's time in milliseconds, so after a restart or a key's expiry the epochs go on
rising and a ticket from the lost state can never match the new one.
"""

from __future__ import annotations

import hashlib

__all__ = ["SCRIPTS", "Script"]

_NOW = """
local _t = redis.call('TIME')
local now = tonumber(_t[1]) + tonumber(_t[2]) / 1000000
local function fmt(x) return string.format('%.6f', x) end
local function int(x) return string.format('%.0f', x) end
"""

# KEYS: breaker. ARGV: probe_timeout, ttl.
# -> {ticket or -1, failures, wait (string)}
ADMIT = (
    _NOW
    + """
local k, ttl = KEYS[1], tonumber(ARGV[2])
local h = redis.call('HMGET', k, 'st', 'ep', 'f', 'ou', 'pu')
local ep = tonumber(h[2])
if not ep then
  ep = tonumber(_t[1]) * 1000 + math.floor(tonumber(_t[2]) / 1000)
  redis.call('HSET', k, 'st', 0, 'ep', int(ep), 'f', 0, 'c', 0)
  redis.call('EXPIRE', k, ttl)
  return {ep * 2, 0, '0'}
end
local st = tonumber(h[1]) or 0
if st == 0 then
  if redis.call('TTL', k) < ttl / 2 then redis.call('EXPIRE', k, ttl) end
  return {ep * 2, tonumber(h[3]) or 0, '0'}
end
local wait
if st == 1 then wait = (tonumber(h[4]) or 0) - now else wait = (tonumber(h[5]) or 0) - now end
if wait > 0 then return {-1, 0, fmt(wait)} end
ep = ep + 1
redis.call('HSET', k, 'st', 2, 'ep', int(ep), 'pu', fmt(now + tonumber(ARGV[1])))
redis.call('EXPIRE', k, ttl)
return {ep * 2 + 1, 0, '0'}
"""
)

# KEYS: breaker, window. ARGV: ticket, outcome (0 success, 1 failure, 2 neutral), threshold,
# recovery, mode (0 consecutive, 1 ratio), ratio, window, minimum_throughput, ttl.
# -> 0 no change, 1 closed->open, 2 half_open->closed, 3 half_open->open
RECORD = (
    _NOW
    + """
local k, w = KEYS[1], KEYS[2]
local ticket, outcome, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[9])
local h = redis.call('HMGET', k, 'st', 'ep', 'f')
local ep = tonumber(h[2])
if not ep or math.floor(ticket / 2) ~= ep then return 0 end
local st = tonumber(h[1]) or 0
local function open(code)
  redis.call('HSET', k, 'st', 1, 'ep', int(ep + 1), 'ou', fmt(now + tonumber(ARGV[4])), 'f', 0,
    'c', 0)
  redis.call('HDEL', k, 'pu')
  redis.call('DEL', w)
  redis.call('EXPIRE', k, ttl)
  return code
end
if ticket % 2 == 1 then
  if st ~= 2 then return 0 end
  if outcome == 2 then
    redis.call('HDEL', k, 'pu')
    return 0
  end
  if outcome == 0 then
    redis.call('HSET', k, 'st', 0, 'ep', int(ep + 1), 'f', 0, 'c', 0)
    redis.call('HDEL', k, 'pu')
    redis.call('DEL', w)
    redis.call('EXPIRE', k, ttl)
    return 2
  end
  return open(3)
end
if st ~= 0 or outcome == 2 then return 0 end
if ARGV[5] == '0' then
  if outcome == 0 then
    if tonumber(h[3]) ~= 0 then redis.call('HSET', k, 'f', 0) end
    return 0
  end
  local f = redis.call('HINCRBY', k, 'f', 1)
  redis.call('EXPIRE', k, ttl)
  if f < tonumber(ARGV[3]) then return 0 end
  return open(1)
end
local b = math.floor(now / (tonumber(ARGV[7]) / 20))
redis.call('HINCRBY', w, 'c' .. b, 1)
if outcome == 1 then redis.call('HINCRBY', w, 'f' .. b, 1) end
local all = redis.call('HGETALL', w)
local calls, fails = 0, 0
for i = 1, #all, 2 do
  local name = all[i]
  if tonumber(string.sub(name, 2)) <= b - 20 then
    redis.call('HDEL', w, name)
  elseif string.sub(name, 1, 1) == 'c' then
    calls = calls + tonumber(all[i + 1])
  else
    fails = fails + tonumber(all[i + 1])
  end
end
redis.call('EXPIRE', w, ttl)
redis.call('HSET', k, 'f', fails, 'c', calls)
redis.call('EXPIRE', k, ttl)
if outcome == 0 or calls < tonumber(ARGV[8]) or fails < tonumber(ARGV[6]) * calls then
  return 0
end
return open(1)
"""
)

# KEYS: breaker, window. ARGV: mode, window. -> {state, epoch, failures, calls, wait (string)}
SNAPSHOT = (
    _NOW
    + """
local k, w = KEYS[1], KEYS[2]
local h = redis.call('HMGET', k, 'st', 'ep', 'f', 'c', 'ou', 'pu')
if not h[2] then return {0, 0, 0, 0, '0'} end
local st, f, c, wait = tonumber(h[1]) or 0, tonumber(h[3]) or 0, tonumber(h[4]) or 0, 0
if st == 0 and ARGV[1] == '1' then
  local b = math.floor(now / (tonumber(ARGV[2]) / 20))
  local all = redis.call('HGETALL', w)
  f, c = 0, 0
  for i = 1, #all, 2 do
    if tonumber(string.sub(all[i], 2)) > b - 20 then
      if string.sub(all[i], 1, 1) == 'c' then c = c + tonumber(all[i + 1])
      else f = f + tonumber(all[i + 1]) end
    end
  end
elseif st == 1 then
  wait = math.max(0, (tonumber(h[5]) or 0) - now)
  if wait == 0 then st = 2 end
elseif st == 2 and h[6] then
  wait = math.max(0, tonumber(h[6]) - now)
end
return {st, tonumber(h[2]), f, c, fmt(wait)}
"""
)

# KEYS: breaker, window. ARGV: ttl. -> the old state
RESET = (
    _NOW
    + """
local k, w = KEYS[1], KEYS[2]
local h = redis.call('HMGET', k, 'st', 'ep')
local ep = tonumber(h[2])
if not ep then ep = tonumber(_t[1]) * 1000 + math.floor(tonumber(_t[2]) / 1000) end
redis.call('HSET', k, 'st', 0, 'ep', int(ep + 1), 'f', 0, 'c', 0)
redis.call('HDEL', k, 'pu', 'ou')
redis.call('DEL', w)
redis.call('EXPIRE', k, tonumber(ARGV[1]))
return tonumber(h[1]) or 0
"""
)

# KEYS: bucket. ARGV: cost, capacity, ttl. -> 1 paid, 0 refused
SPEND = """
local cap, cost = tonumber(ARGV[2]), tonumber(ARGV[1])
local v = tonumber(redis.call('GET', KEYS[1])) or cap
if v > cap then v = cap end
if v < cost then return 0 end
redis.call('SET', KEYS[1], string.format('%.17g', v - cost), 'EX', tonumber(ARGV[3]))
return 1
"""

# KEYS: bucket. ARGV: amount, capacity, ttl. A missing bucket is full.
DEPOSIT = """
local v = tonumber(redis.call('GET', KEYS[1]))
if not v then return 0 end
v = v + tonumber(ARGV[1])
if v >= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.17g', v), 'EX', tonumber(ARGV[3]))
end
return 1
"""

# Rate-limit hash fields, per dimension d in {r (requests), t (tokens)}: d..'n' remaining,
# d..'a' reset at (server time), d..'l' limit; 'na' = the next paced start.
# KEYS: limiter. ARGV: r_remaining, r_reset_s, r_limit, t_remaining, t_reset_s, t_limit, ttl,
# default_reset_s ('' = unknown).
OBSERVE = (
    _NOW
    + """
local k = KEYS[1]
local function put(d, rem, reset, lim)
  if lim ~= '' then redis.call('HSET', k, d .. 'l', lim) end
  if rem == '' then return end
  rem = tonumber(rem)
  local at = now + (tonumber(reset) or tonumber(ARGV[8]))
  local h = redis.call('HMGET', k, d .. 'n', d .. 'a')
  local old, old_at = tonumber(h[1]), tonumber(h[2])
  if old and old_at and old_at > now and at <= old_at + 0.5 then
    if old < rem then rem = old end
    if old_at > at then at = old_at end
  end
  redis.call('HSET', k, d .. 'n', rem, d .. 'a', fmt(at))
end
put('r', ARGV[1], ARGV[2], ARGV[3])
put('t', ARGV[4], ARGV[5], ARGV[6])
redis.call('EXPIRE', k, tonumber(ARGV[7]))
return 1
"""
)

# KEYS: limiter. ARGV: tokens, pace_below, ttl. -> wait seconds (string); '0' = go (consumed)
ACQUIRE = (
    _NOW
    + """
local k = KEYS[1]
local h = redis.call('HMGET', k, 'rn', 'ra', 'rl', 'tn', 'ta', 'tl', 'na')
local pace, wait, interval = tonumber(ARGV[2]), 0, 0
local dims = {{'r', 1, 1}, {'t', tonumber(ARGV[1]), 4}}
local live = {}
for _, d in ipairs(dims) do
  local name, cost, i = d[1], d[2], d[3]
  local rem, at, lim = tonumber(h[i]), tonumber(h[i + 1]), tonumber(h[i + 2])
  if rem and at and now >= at then
    redis.call('HDEL', k, name .. 'n', name .. 'a')
    rem = nil
  end
  if rem and cost > 0 then
    if rem < cost then
      wait = math.max(wait, at - now)
    else
      live[name] = rem - cost
      if lim and rem - cost < lim * pace then
        interval = math.max(interval, (at - now) * cost / rem)
      end
    end
  end
end
local na = tonumber(h[7]) or 0
if interval > 0 and na > now then wait = math.max(wait, na - now) end
if wait > 0 then return fmt(wait) end
for name, left in pairs(live) do redis.call('HSET', k, name .. 'n', left) end
if interval > 0 then redis.call('HSET', k, 'na', fmt(math.max(na, now) + interval)) end
redis.call('EXPIRE', k, tonumber(ARGV[3]))
return '0'
"""
)


class Script:
    """A script's source and SHA1, computed once; the store loads it on ``NOSCRIPT``."""

    __slots__ = ("name", "sha", "source")

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()


SCRIPTS: dict[str, Script] = {
    name: Script(name, src)
    for name, src in {
        "admit": ADMIT,
        "record": RECORD,
        "snapshot": SNAPSHOT,
        "reset": RESET,
        "spend": SPEND,
        "deposit": DEPOSIT,
        "observe": OBSERVE,
        "acquire": ACQUIRE,
    }.items()
}
