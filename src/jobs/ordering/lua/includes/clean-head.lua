--[[
  cleanHead(pending, reserved, jobPrefix, jobId, now, grace) -> the first live entry of the lane, or
  false when the lane is empty (or more than 200 dead heads were dropped in this call).

  Drops finished or abandoned entries from the head of the lane, stopping at `jobId` (the caller's
  own job is never dropped). A head is finished when its job has a done marker or sits in BullMQ's
  completed or failed set. A head whose job does not exist blocks the lane for `grace` ms after its
  reservation (its producer is between reserve and add), then is given up: the producer died, or
  the job was removed by hand.

    pending    the lane's pending set          jobId   the caller's job id
    reserved   the lane's reservation hash     now     current time, ms (number)
    jobPrefix  jobKeyPrefix(prefix)            grace   reservation grace, ms (number)
]]
local function cleanHead(pending, reserved, jobPrefix, jobId, now, grace)
  local head = false
  for _ = 1, 200 do
    head = redis.call('ZRANGE', pending, 0, 0)[1]
    if not head or head == jobId then break end
    local finished = false
    if redis.call('EXISTS', jobPrefix .. head) == 0 then
      local at = redis.call('HGET', reserved, head)
      finished = (not at) or (now - tonumber(at)) > grace
    elseif redis.call('HEXISTS', jobPrefix .. head, 'lsDone') == 1
        or redis.call('ZSCORE', jobPrefix .. 'failed', head)
        or redis.call('ZSCORE', jobPrefix .. 'completed', head) then
      finished = true
    end
    if not finished then break end
    redis.call('ZREM', pending, head)
    redis.call('HDEL', reserved, head)
    head = false
  end
  return head
end
