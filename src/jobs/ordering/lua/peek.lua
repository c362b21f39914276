--[[
  peek: after parking a job (moved to BullMQ's delayed set on `wait`), whether it has become the
  head of its lane meanwhile, so the worker can promote it at once. Drops finished heads first,
  like acquire.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id
    ARGV[3] job id
    ARGV[4] now, ms
    ARGV[5] reservation grace, ms

  Output:
    1 when the job is the head of its lane, else 0
]]
--- @include "includes/keys"
--- @include "includes/clean-head"

local P, lane, jobId = ARGV[1], ARGV[2], ARGV[3]
local now, grace = tonumber(ARGV[4]), tonumber(ARGV[5])

local head = cleanHead(KEYS[1], laneKey(P, lane, 'reserved'), jobKeyPrefix(P), jobId, now, grace)
if head == jobId then return 1 end
return 0
