--[[
  Key names the ordering scripts derive from the key prefix (ARGV[1] of every script, `{longshore}`)
  and a lane id, so a call passes two short strings instead of every key. They must stay equal to
  what src/jobs/keys.ts derives: the integration tests read these keys through keys.ts.

  laneKey(prefix, lane, part) -> '<prefix>:lane:<lane>:<part>', part one of
      'pending' (sorted set of unfinished job ids by position), 'reserved' (hash: id -> reserved at,
      ms), 'seq' (the lane's counter), 'latest' (hash: supersede key -> newest job id)
  jobKeyPrefix(prefix) -> '<prefix>:jobs:', BullMQ's prefix of the jobs queue: a job's hash is this
      .. jobId, its completed / failed / delayed sets are this .. 'completed' and so on
  statusKey(prefix, lane) -> '<prefix>:status:<lane>', the lane's status projection (hash)
  statusLanesKey(prefix) -> '<prefix>:status:lanes', the set of lanes with a projection
]]
local function laneKey(prefix, lane, part)
  return prefix .. ':lane:' .. lane .. ':' .. part
end

local function jobKeyPrefix(prefix)
  return prefix .. ':jobs:'
end

local function statusKey(prefix, lane)
  return prefix .. ':status:' .. lane
end

local function statusLanesKey(prefix)
  return prefix .. ':status:lanes'
end
