/**
 * The per-lane ordering protocol, as Redis Lua scripts so every step is atomic.
 *
 *   reserve  (producer, before adding the BullMQ job) — next position in the lane; the job id is
 *            `{lane}.{seq}`, so the queue's acceptance order is the lane's order.
 *   acquire  (worker, when a job is picked) — `go` only for the head of the lane; `wait` otherwise.
 *            Heads whose job finished, or whose reservation was abandoned, are dropped first.
 *   peek     (worker, after parking a job) — the same clean-up, then "is this job the head now?".
 *   finish   (worker, when a job ended for good) — drop it from the lane, write the status
 *            projection and the done marker, return the next head so it can be promoted.
 *
 * See docs/ordering.md for why this shape and how failures are handled.
 */

/**
 * Drops finished or abandoned entries from the head of the lane. Leaves `head` set to the first
 * live entry (or false). Needs: pending, reserved, now, grace, bull, jobPrefix.
 */
const CLEAN_HEAD = `
local head = false
for i = 1, 200 do
  head = redis.call('ZRANGE', pending, 0, 0)[1]
  if not head or head == jobId then break end
  local finished = false
  if redis.call('EXISTS', bull .. head) == 0 then
    -- No job: its producer died between reserve and add, or it was removed. Wait out the grace.
    local at = tonumber(redis.call('HGET', reserved, head) or '0')
    finished = (now - at) > grace
  elseif redis.call('EXISTS', jobPrefix .. head .. ':done') == 1
      or redis.call('ZSCORE', bull .. 'failed', head)
      or redis.call('ZSCORE', bull .. 'completed', head) then
    finished = true
  end
  if not finished then break end
  redis.call('ZREM', pending, head)
  redis.call('HDEL', reserved, head)
  head = false
end
`;

/**
 * KEYS: seq, pending, reserved, lanes, latest
 * ARGV: lane, now, bull, supersedeKey ('' for none), jobPrefix
 * Returns {jobId, seq}.
 */
export const RESERVE = `
local seqKey, pending, reserved, lanes, latest = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local lane, now, bull, supersedeKey, jobPrefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local seq, id
-- Skip positions whose id is still taken (the counter was reset while old jobs are retained):
-- BullMQ ignores an add whose id exists, which would lose the new job silently.
for i = 1, 100000 do
  seq = redis.call('INCR', seqKey)
  id = lane .. '.' .. seq
  if redis.call('EXISTS', bull .. id) == 0 and redis.call('EXISTS', jobPrefix .. id .. ':done') == 0 then break end
  id = false
end
if not id then return redis.error_reply('no free job id in lane ' .. lane) end
redis.call('ZADD', pending, seq, id)
redis.call('HSET', reserved, id, now)
redis.call('SADD', lanes, lane)
if supersedeKey ~= '' then redis.call('HSET', latest, supersedeKey, id) end
return {id, seq}
`;

/**
 * Undo a reservation whose add failed.
 * KEYS: pending, reserved, latest   ARGV: jobId, supersedeKey
 */
export const UNRESERVE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[2] ~= '' and redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
return 1
`;

/**
 * KEYS: pending, reserved, seq, latest, status, statusIndex, attempts, done, lanes
 * ARGV: jobId, now, grace, bull, lane, supersedeKey, attemptJson, jobType, ttl, jobPrefix
 * Returns one of:
 *   {'done', resultJson}                 already finished (a duplicate delivery)
 *   {'wait', headId}                     another job of the lane goes first
 *   {'superseded', newerId, seq}         a newer job with the same supersede key is queued
 *   {'go', seq, requeued, attempts[]}    run it; attempts are the earlier attempt records
 */
export const ACQUIRE =
  `
local pending, reserved, seqKey, latest, status, statusIndex, attempts, doneKey, lanes =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local jobId, now, grace, bull, lane = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local supersedeKey, attempt, jobType, ttl, jobPrefix = ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[9]), ARGV[10]

local done = redis.call('GET', doneKey)
if done then return {'done', done} end

local requeued = 0
local seq = redis.call('ZSCORE', pending, jobId)
if not seq then
  -- Not in the lane: retried after it failed for good, or added after its reservation was given
  -- up. Either way it joins the lane at the tail, as if enqueued now.
  seq = redis.call('INCR', seqKey)
  redis.call('ZADD', pending, seq, jobId)
  redis.call('HSET', reserved, jobId, now)
  redis.call('SADD', lanes, lane)
  requeued = 1
end
seq = tonumber(seq)
` +
  CLEAN_HEAD +
  `
if head ~= jobId then return {'wait', head or ''} end

if supersedeKey ~= '' then
  local newer = redis.call('HGET', latest, supersedeKey)
  if newer and newer ~= jobId then
    local newerSeq = redis.call('ZSCORE', pending, newer)
    if newerSeq and tonumber(newerSeq) > seq then return {'superseded', newer, seq} end
  end
end

local previous = redis.call('LRANGE', attempts, 0, -1)
redis.call('RPUSH', attempts, attempt)
redis.call('EXPIRE', attempts, ttl)
redis.call('HSET', status, 'lane', lane, 'activeJobId', jobId, 'activeType', jobType, 'activeSince', now, 'updatedAt', now)
redis.call('ZADD', statusIndex, now, lane)
return {'go', seq, requeued, previous}
`;

/**
 * KEYS: pending, reserved
 * ARGV: jobId, now, grace, bull, jobPrefix
 * Returns 1 when jobId is the head of its lane (after dropping finished heads), else 0.
 */
export const PEEK =
  `
local pending, reserved = KEYS[1], KEYS[2]
local jobId, now, grace, bull, jobPrefix = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
` +
  CLEAN_HEAD +
  `
if head == jobId then return 1 end
return 0
`;

/**
 * KEYS: pending, reserved, latest, status, statusIndex, attempts, done, lanes
 * ARGV: jobId, now, lane, supersedeKey, doneValue ('' = none), attemptJson ('' = none), ttl, bull, statusPairs...
 * Returns {nextId or '', nextIsDelayed 0|1}.
 */
export const FINISH = `
local pending, reserved, latest, status, statusIndex, attempts, doneKey, lanes =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local jobId, now, lane, supersedeKey, doneValue, attempt, ttl, bull =
  ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]), ARGV[8]

redis.call('ZREM', pending, jobId)
redis.call('HDEL', reserved, jobId)
if supersedeKey ~= '' and redis.call('HGET', latest, supersedeKey) == jobId then redis.call('HDEL', latest, supersedeKey) end
if doneValue ~= '' then redis.call('SET', doneKey, doneValue, 'EX', ttl) end
if attempt ~= '' then
  if redis.call('LLEN', attempts) > 0 then redis.call('LSET', attempts, -1, attempt) else redis.call('RPUSH', attempts, attempt) end
  redis.call('EXPIRE', attempts, ttl)
end
if #ARGV > 8 then
  local pairs = {}
  for i = 9, #ARGV do pairs[#pairs + 1] = ARGV[i] end
  redis.call('HSET', status, 'lane', lane, 'updatedAt', now, unpack(pairs))
  if redis.call('HGET', status, 'activeJobId') == jobId then redis.call('HDEL', status, 'activeJobId', 'activeType', 'activeSince') end
  redis.call('ZADD', statusIndex, now, lane)
end

local nextId = redis.call('ZRANGE', pending, 0, 0)[1]
if not nextId then
  redis.call('SREM', lanes, lane)
  return {'', 0}
end
local delayed = 0
if redis.call('ZSCORE', bull .. 'delayed', nextId) then delayed = 1 end
return {nextId, delayed}
`;
