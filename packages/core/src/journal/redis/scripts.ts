// The Redis journal's scripts: a batch is written in one round trip, atomically (stream entry, reference indexes,
// last success), and a search by reference reads the index and the stream entries in one more. An index is a list of
// stream ids, oldest first (ids only grow): RPUSH answers the new length, so trimming costs nothing until a reference
// has more entries than its cap (a sorted set cost several times more Redis time per entry).

/**
 * Writes a batch. KEYS[1] the stream; ARGV: maxlen, ttl ms, index prefix, per-reference cap, then per entry: its
 * JSON, its `at`, the source whose last success it is (`""` when none), the number of references, the references.
 * Every key shares the prefix's hash tag (one Redis Cluster slot).
 */
export const WRITE_SCRIPT = `
local maxlen, ttl, prefix, cap = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local refs = prefix .. 'ref:'
local last = {}
local i = 5
while i <= #ARGV do
  local json, at, success, n = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', maxlen, '*', 'e', json)
  for r = 1, n do
    local index = refs .. ARGV[i + 3 + r]
    if redis.call('RPUSH', index, id) > cap then redis.call('LTRIM', index, -cap, -1) end
    redis.call('PEXPIRE', index, ttl)
  end
  if success ~= '' and (last[success] == nil or last[success] < tonumber(at)) then last[success] = tonumber(at) end
  i = i + 4 + n
end
for source, at in pairs(last) do
  local key = prefix .. 'last:' .. source
  if tonumber(redis.call('GET', key) or '0') < at then redis.call('SET', key, string.format('%d', at), 'PX', ttl) end
end
return 1`;

/**
 * Reads the entries the indexes name, newest first. KEYS[1] the stream, KEYS[2..] the indexes. Answers id, JSON, id,
 * JSON …; ids the capped stream dropped are skipped (the caller filters by time, source and outcome).
 */
export const SEARCH_SCRIPT = `
local out = {}
local seen = {}
for k = 2, #KEYS do
  local ids = redis.call('LRANGE', KEYS[k], 0, -1)
  for n = #ids, 1, -1 do
    local id = ids[n]
    if not seen[id] then
      seen[id] = true
      local found = redis.call('XRANGE', KEYS[1], id, id)
      if found[1] then
        out[#out + 1] = id
        out[#out + 1] = found[1][2][2]
      end
    end
  end
end
return out`;
