--[[
  leaveLane(pending, reserved, latest, jobId, supersedeKey) -> nothing

  Takes `jobId` out of its lane: its position, its reservation time and, when it is still the
  newest job of its supersede key ('' for none), that entry, so a later job of the key takes the
  fast path of supersededBy.
]]
local function leaveLane(pending, reserved, latest, jobId, supersedeKey)
  redis.call('ZREM', pending, jobId)
  redis.call('HDEL', reserved, jobId)
  if supersedeKey ~= '' and redis.call('HGET', latest, supersedeKey) == jobId then
    redis.call('HDEL', latest, supersedeKey)
  end
end
