--[[
  acquireOne(P, pending, lane, jobId, now, grace, supersedeKey, attempt, rule, passableTypes)
      -> the reply of `acquire` for one job (see acquire.lua): {'done', doneJson}, {'wait', headId},
      {'superseded', byId, seq} or {'go', seq, requeued, n, previous[], renamedTo, cacheFence}.

  The whole turn check of one job, shared by acquire (one job) and acquire-many (the jobs a
  worker picked in the same tick, one after the other in one script: the same as as many acquire
  calls in a row, which Redis runs atomically each, only without a round trip per job).

    P        key prefix ({longshore})         now, grace     ms (numbers)
    pending  the lane's pending set           supersedeKey   '' for none
    lane     lane id                          attempt        the attempt record (JSON), stored on `go`
    jobId    the job's id                     rule, passableTypes   see superseded-by.lua
]]
--- @include "keys"
--- @include "clean-head"
--- @include "superseded-by"
--- @include "record-attempt"

local function acquireOne(P, pending, lane, jobId, now, grace, supersedeKey, attempt, rule, passableTypes)
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
      passableTypes)
    if by then return {'superseded', by, seq} end
  end

  local n, previous = recordAttempt(jobKey, attempt)
  -- The lane's rename marker (src/jobs/renamed.ts), read here so the runner's check before the
  -- handler costs no round trip of its own. Reading it now is the same as reading it once the job
  -- starts: only a job heading this lane writes or clears it, and this one heads it.
  -- The lane's cache fence (src/kube/cache-fence.ts), read in the same call for the same reason.
  local marks = redis.call('HMGET', statusKey(P, lane), 'renamedTo', 'cacheFence')
  return {'go', seq, requeued, n, previous, marks[1] or '', marks[2] or ''}
end
