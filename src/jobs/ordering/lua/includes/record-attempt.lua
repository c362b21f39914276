--[[
  recordAttempt(jobKey, attempt) -> n, previous

  Appends attempt record `attempt` (JSON) to the job's hash as field 'lsA:<n>' and counts it in
  'lsAN' (see JOB_FIELDS in src/jobs/keys.ts). Returns its number n and the earlier records in
  order, '' for any that is missing, so the handler sees what earlier attempts did.
]]
local function recordAttempt(jobKey, attempt)
  local n = redis.call('HINCRBY', jobKey, 'lsAN', 1)
  local previous = {}
  if n > 1 then
    local fields = {}
    for i = 1, n - 1 do fields[i] = 'lsA:' .. i end
    previous = redis.call('HMGET', jobKey, unpack(fields))
    for i = 1, #previous do if not previous[i] then previous[i] = '' end end
  end
  redis.call('HSET', jobKey, 'lsA:' .. n, attempt)
  return n, previous
end
