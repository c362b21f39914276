--[[
  reserve: the producer's step before it adds a BullMQ job to a lane. Takes the lane's next
  position; the job id is '<lane>.<seq>', so the order in which the queue accepted the lane's jobs
  is stored in Redis. The producer then adds the job under that id (or calls unreserve if the add
  fails). With a barrier id, the position holds that job of another lane instead (a rename in the
  lane of its new name): the lane's later jobs wait until that job has finished.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id (app.web)
    ARGV[3] now, ms: the reservation time (a slot whose job never comes is dropped after a grace)
    ARGV[4] supersede key ('' for none): the job becomes the newest of its key
    ARGV[5] barrier job id ('' for none): reserve the position for this existing id

  Output:
    {jobId, seq}  (jobId is ARGV[5] for a barrier)
    error 'no free job id in lane <lane>' when 100000 positions in a row are taken
]]
--- @include "includes/keys"

local P, lane, now, supersedeKey, barrier = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local pending = KEYS[1]
local jobPrefix = jobKeyPrefix(P)
local seqKey = laneKey(P, lane, 'seq')

local seq, id
if barrier ~= '' then
  seq = redis.call('INCR', seqKey)
  id = barrier
end
-- Skip positions whose id is still taken (the counter was reset while old jobs are retained):
-- BullMQ ignores an add whose id exists, which would lose the new job silently.
for _ = 1, 100000 do
  if id then break end
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
return {id, seq}
