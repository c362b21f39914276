--[[
  finish: a job of a lane ended for good (completed, failed for good, superseded, invalid). Written
  on the worker's connection just before BullMQ's own completion or failure command, so it is in
  place first. Writes the done marker and closes the attempt record, updates the lane's status
  projection, takes the job out of the lane and returns the new head, which the worker promotes
  if it is parked.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id
    ARGV[3] job id
    ARGV[4] now, ms (unused by the script; kept so the calling convention stays one shape)
    ARGV[5] supersede key ('' for none)
    ARGV[6] done marker (JSON): a duplicate delivery answers from it
    ARGV[7] number of the attempt record to close ('0' for none)
    ARGV[8] the attempt record (JSON)
    ARGV[9...] status projection fields and values (last, success, revision, image, updatedAt…)

  Output:
    {nextId, nextIsDelayed}  the new head ('' for an empty lane) and 1 when it sits in BullMQ's
                             delayed set (parked), else 0
]]
--- @include "includes/keys"
--- @include "includes/leave-lane"

local P, lane, jobId = ARGV[1], ARGV[2], ARGV[3]
local supersedeKey, done, n, attempt = ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local pending = KEYS[1]
local jobPrefix = jobKeyPrefix(P)

leaveLane(pending, laneKey(P, lane, 'reserved'), laneKey(P, lane, 'latest'), jobId, supersedeKey)
if n ~= '0' then
  redis.call('HSET', jobPrefix .. jobId, 'lsDone', done, 'lsA:' .. n, attempt)
else
  redis.call('HSET', jobPrefix .. jobId, 'lsDone', done)
end
redis.call('HSET', statusKey(P, lane), unpack(ARGV, 9))
-- SADD of a known lane changes nothing, so it costs neither a write nor an AOF entry.
redis.call('SADD', statusLanesKey(P), lane)

local nextId = redis.call('ZRANGE', pending, 0, 0)[1]
if not nextId then return {'', 0} end
local delayed = 0
if redis.call('ZSCORE', jobPrefix .. 'delayed', nextId) then delayed = 1 end
return {nextId, delayed}
