--[[
  hold: a job of another queue shard takes this lane's next position (docs/redis-cluster.md,
  "Jobs of two lanes"): the second lane of a rename or a mount whose lanes hash to different
  shards, which one script cannot reserve together. Like reserve's barrier lane, with the job id
  given and the reservation time chosen by the caller: the producer pins it in the future, as the
  job's hash lives in the other shard and cleanHead here cannot see it; the hold leaves the lane
  through unreserve when the job ends.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix (the lane's shard's, {longshore-1})
    ARGV[2] lane id
    ARGV[3] job id (of a lane in another shard)
    ARGV[4] reservation time, ms

  Output:
    seq, the position taken
]]
--- @include "includes/keys"

local P, lane, jobId, at = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local seq = redis.call('INCR', laneKey(P, lane, 'seq'))
redis.call('ZADD', KEYS[1], seq, jobId)
redis.call('HSET', laneKey(P, lane, 'reserved'), jobId, at)
redis.call('SADD', statusLanesKey(P), lane)
return seq
