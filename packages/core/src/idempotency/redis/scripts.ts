// The Lua scripts the Redis idempotency store runs (EVAL): each reads and writes a key and its attempt counter in one
// atomic step. Nothing here sends anything: the store (store.ts) does.

// Record key: "p:<owner>" while a lease is live, "done" once completed. A sibling key counts released (failed)
// attempts. Both share a hash tag so they land on the same Redis Cluster slot.
// ARGV[3] is "1" with replica acknowledgement: a completed record found is written again (same value, same expiry),
// so that the WAIT sent after the script on this connection covers it, whichever connection first wrote it.
export const CLAIM_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('GET', KEYS[2]) or '0'}
end
local value = redis.call('GET', KEYS[1]) or ''
if value == 'done' and ARGV[3] == '1' then redis.call('SET', KEYS[1], 'done', 'KEEPTTL') end
return {0, value}`;

// Compare-and-set: only the claimant (or nobody, after its lease expired unclaimed) may mark the key completed.
// 1: marked; 2: it already was (written again with ARGV[3] "1", as in the claim); 0: another delivery holds it.
export const COMPLETE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] or not current then
  redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
  redis.call('DEL', KEYS[2])
  return 1
end
if current == 'done' then
  if ARGV[3] == '1' then redis.call('SET', KEYS[1], 'done', 'KEEPTTL') end
  return 2
end
return 0`;

// Compare-and-delete: only the claimant releases; the failed attempt is counted for `ctx.isRetry`.
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return 1
end
return 0`;

// Compare-and-delete of a claim its delivery never used (it timed out before Redis applied it): nothing ran, so no
// attempt is counted.
export const WITHDRAW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

// Read-only: the record's value (an owner token never leaves the script), its time to live and the failed attempts.
export const INSPECT_SCRIPT = `
local value = redis.call('GET', KEYS[1]) or ''
if string.sub(value, 1, 2) == 'p:' then value = 'p:' end
return {value, redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[2]) or '0'}`;
