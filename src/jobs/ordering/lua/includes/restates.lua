--[[
  payloadOf(jobKey) -> the `payload` table of the job's envelope (its hash field 'data'), or false
      when the job has no data or it is not an envelope with a payload object.

  restates(newer, older) -> true when every field `older` sets, at every depth, is set in `newer`.
      Fields merged per key (formation per process type, a process's replicas or resources) keep
      the app's value where absent, so presence at the top is not enough. Lists compare by index,
      which only errs towards running the older deploy. Depth is bounded by the payload schema.
]]
local function payloadOf(jobKey)
  local ok, data = pcall(cjson.decode, redis.call('HGET', jobKey, 'data') or '')
  if ok and type(data) == 'table' and type(data.payload) == 'table' then return data.payload end
  return false
end

local function restates(newer, older)
  if type(older) ~= 'table' then return newer ~= nil end
  if type(newer) ~= 'table' then return false end
  for field, value in pairs(older) do
    if not restates(newer[field], value) then return false end
  end
  return true
end
