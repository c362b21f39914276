--[[
  reserve: the producer's step before it adds a BullMQ job to a lane. Takes the lane's next
  position; the job id is '<lane>.<seq>', so the order in which the queue accepted the lane's jobs
  is stored in Redis. The producer then adds the job under that id (or calls unreserve if the add
  fails). With a barrier lane, the same call also takes that lane's next position for the same job
  id (a rename in the lane of its new name, a mount in its storage entry's lane): the other lane's
  later jobs wait until this job has finished, and the job itself starts only once it heads both.
  Both positions are taken in one script, so every lane orders any two such jobs alike: a job only
  ever waits for jobs reserved before it, which is what keeps two lanes waiting on each other
  (a deadlock) impossible.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id (app.web)
    ARGV[3] now, ms: the reservation time (a slot whose job never comes is dropped after a grace)
    ARGV[4] supersede key ('' for none): the job becomes the newest of its key
    ARGV[5] barrier lane id ('' for none): also hold this lane, at its next position

  Output:
    {jobId, seq, barrierSeq}  (barrierSeq 0 without a barrier lane)
    error 'no free job id in lane <lane>' when 100000 positions in a row are taken
]]
--- @include "includes/keys"

local P, lane, now, supersedeKey, barrierLane = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local pending = KEYS[1]
local jobPrefix = jobKeyPrefix(P)
local seqKey = laneKey(P, lane, 'seq')

local seq, id
-- Skip positions whose id is still taken (the counter was reset while old jobs are retained):
-- BullMQ ignores an add whose id exists, which would lose the new job silently.
for _ = 1, 100000 do
  seq = redis.call('INCR', seqKey)
  id = lane .. '.' .. seq
  if redis.call('EXISTS', jobPrefix .. id) == 0 then break end
  id = false
end
if not id then return redis.error_reply('no free job id in lane ' .. lane) end
redis.call('ZADD', pending, seq, id)
redis.call('HSET', laneKey(P, lane, 'reserved'), id, now)
redis.call('SADD', statusLanesKey(P), lane)
if supersedeKey ~= '' then redis.call('HSET', laneKey(P, lane, 'latest'), supersedeKey, id) end

local barrierSeq = 0
if barrierLane ~= '' then
  barrierSeq = redis.call('INCR', laneKey(P, barrierLane, 'seq'))
  redis.call('ZADD', laneKey(P, barrierLane, 'pending'), barrierSeq, id)
  redis.call('HSET', laneKey(P, barrierLane, 'reserved'), id, now)
  redis.call('SADD', statusLanesKey(P), barrierLane)
end
return {id, seq, barrierSeq}
