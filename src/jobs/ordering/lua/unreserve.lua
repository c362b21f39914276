--[[
  unreserve: undoes a reservation whose add failed, or drops a queued job an operator cancelled
  (jobs:cancel), so the lane does not wait for it.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id
    ARGV[3] job id
    ARGV[4] supersede key ('' for none)

  Output:
    1
]]
--- @include "includes/keys"
--- @include "includes/leave-lane"

local P, lane, jobId, supersedeKey = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
leaveLane(KEYS[1], laneKey(P, lane, 'reserved'), laneKey(P, lane, 'latest'), jobId, supersedeKey)
return 1
