// The Redis journal's scripts: a batch is written in one round trip, atomically (stream entry, reference indexes,
// last success), and a search by reference reads the index and the stream entries in one more. An index is a string
// of stream ids joined by commas, oldest first (ids only grow): a reference's first entry creates it with its TTL in
// one command (SET NX PX), where a list took two (RPUSH, PEXPIRE) and a sorted set several times more Redis time;
// later entries APPEND and refresh the TTL. Past `cap` ids by a quarter, an index is cut back to its newest `cap`
// (searches read only the newest `cap`), so a flood costs one cut per `cap / 4` entries.

/**
 * Writes a batch. KEYS[1] the stream; ARGV: maxlen, ttl ms, index prefix, per-reference cap, the number of sources
 * with a webhook success in the batch and, for each, the source and its latest success's `at`; then per entry: its
 * JSON, the number of references, the references.
 * Every key shares the prefix's hash tag (one Redis Cluster slot).
 */
export const WRITE_SCRIPT = `
local maxlen, ttl, prefix, cap = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local refs = prefix .. 'refs:'
local slack = math.ceil(cap / 4)
-- Stream ids are at least 15 characters (13-digit ms, '-', a sequence): an index shorter than this holds at most
-- cap + slack ids, and is not read.
local cutAt = (cap + slack + 1) * 16 - 1
local sources = tonumber(ARGV[5])
local i = 6 + 2 * sources
while i <= #ARGV do
  local json, n = ARGV[i], tonumber(ARGV[i + 1])
  local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', maxlen, '*', 'e', json)
  for r = 1, n do
    local index = refs .. ARGV[i + 1 + r]
    if not redis.call('SET', index, id, 'NX', 'PX', ttl) then
      local length = redis.call('APPEND', index, ',' .. id)
      redis.call('PEXPIRE', index, ttl)
      if length >= cutAt then
        local ids = {}
        for kept in string.gmatch(redis.call('GET', index), '[^,]+') do ids[#ids + 1] = kept end
        if #ids > cap + slack then redis.call('SET', index, table.concat(ids, ',', #ids - cap + 1, #ids), 'PX', ttl) end
      end
    end
  end
  i = i + 2 + n
end
for s = 0, sources - 1 do
  local source, at = ARGV[6 + 2 * s], tonumber(ARGV[7 + 2 * s])
  local key = prefix .. 'last:' .. source
  if tonumber(redis.call('GET', key) or '0') < at then redis.call('SET', key, string.format('%d', at), 'PX', ttl) end
end
return 1`;

/**
 * Reads the entries the indexes name, newest first. KEYS[1] the stream, KEYS[2..] the indexes; ARGV[1] the most
 * ids read per index (the journal's `maxPerReference`). Answers id, JSON, id, JSON …; ids the capped stream dropped
 * are skipped (the caller filters by time, source and outcome).
 */
export const SEARCH_SCRIPT = `
local cap = tonumber(ARGV[1])
local out = {}
local seen = {}
for k = 2, #KEYS do
  local ids = {}
  for id in string.gmatch(redis.call('GET', KEYS[k]) or '', '[^,]+') do ids[#ids + 1] = id end
  for n = #ids, math.max(1, #ids - cap + 1), -1 do
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
