--[[
  acquire: the worker's turn check when BullMQ hands it a job of a lane. Drops finished or
  abandoned heads (cleanHead); answers `go` only to the head of the lane, and only when no newer
  job of its type carries its change forward (supersededBy); records the attempt on `go`.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id
    ARGV[3] job id
    ARGV[4] now, ms
    ARGV[5] reservation grace, ms
    ARGV[6] supersede key ('' for none)
    ARGV[7] attempt record (JSON), stored on `go`
    ARGV[8] supersede rule: 'any' | 'adjacent' (only with a supersede key)
    ARGV[9...] the job types an 'adjacent' walk passes (only with a supersede key)

  Output, one of:
    {'done', doneJson}                    already finished (a duplicate delivery)
    {'wait', headId}                      another job of the lane goes first ('' if none is live)
    {'superseded', byId, seq}             a newer job of its type carries its change forward
    {'go', seq, requeued, n, previous[]}  run it as attempt n; requeued 1 when it joined the lane's
                                          tail now; previous are the earlier attempt records
]]
--- @include "includes/keys"
--- @include "includes/clean-head"
--- @include "includes/superseded-by"
--- @include "includes/record-attempt"

local P, lane, jobId = ARGV[1], ARGV[2], ARGV[3]
local now, grace, supersedeKey, attempt, rule = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8]
local pending = KEYS[1]
local jobPrefix = jobKeyPrefix(P)
local jobKey = jobPrefix .. jobId

local done = redis.call('HGET', jobKey, 'lsDone')
if done then return {'done', done} end

local requeued = 0
local seq = redis.call('ZSCORE', pending, jobId)
if not seq then
  -- Not in the lane: retried after it failed for good, or added after its reservation was given
  -- up. Either way it joins the lane at the tail, as if enqueued now.
  seq = redis.call('INCR', laneKey(P, lane, 'seq'))
  redis.call('ZADD', pending, seq, jobId)
  requeued = 1
end
seq = tonumber(seq)

local head = cleanHead(pending, laneKey(P, lane, 'reserved'), jobPrefix, jobId, now, grace)
if head ~= jobId then return {'wait', head or ''} end

if supersedeKey ~= '' then
  local by = supersededBy(pending, laneKey(P, lane, 'latest'), jobPrefix, jobId, seq, supersedeKey, rule,
    {unpack(ARGV, 9)})
  if by then return {'superseded', by, seq} end
end

local n, previous = recordAttempt(jobKey, attempt)
return {'go', seq, requeued, n, previous}
