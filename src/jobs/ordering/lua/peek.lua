--[[
  peek: whether a job is the head of a lane, dropping finished heads first, like acquire. Asked
  after parking a job (moved to BullMQ's delayed set on `wait`: has it become the head meanwhile,
  so the worker can promote it at once?), and before a job that holds a second lane (a barrier,
  docs/ordering.md) acquires its own: it starts only once it heads the barrier lane too.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id
    ARGV[3] job id
    ARGV[4] now, ms
    ARGV[5] reservation grace, ms

  Output:
    1 when the job is the head of the lane, 0 when another job is, -1 when the job is not in the
    lane (nothing there to wait for: a barrier given up after the grace, or a retried job)
]]
--- @include "includes/keys"
--- @include "includes/clean-head"

local P, lane, jobId = ARGV[1], ARGV[2], ARGV[3]
local now, grace = tonumber(ARGV[4]), tonumber(ARGV[5])

if not redis.call('ZSCORE', KEYS[1], jobId) then return -1 end
local head = cleanHead(KEYS[1], laneKey(P, lane, 'reserved'), jobKeyPrefix(P), jobId, now, grace)
if head == jobId then return 1 end
return 0
