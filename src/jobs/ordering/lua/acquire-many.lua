--[[
  acquire-many: `acquire` for the jobs one worker process picked in the same tick, in one script
  call instead of one round trip each (lane-store.ts coalesces them). The jobs are checked one
  after the other, in the order given, exactly as that many acquire calls in a row: jobs of the
  same lane see each other's effects, so FIFO and exclusion are those of acquire. Every job
  belongs to the same queue, so all keys share its hash tag (one Redis Cluster slot).

  Input:
    KEYS[1] the pending set of the first job's lane, for Redis Cluster routing (every other key
            the script touches is in the same slot: same prefix, same hash tag)

    ARGV[1] key prefix ({longshore})
    ARGV[2] now, ms
    ARGV[3] how many jobs follow
    then per job, in order: lane id, job id, reservation grace (ms), supersede key ('' for none),
        attempt record (JSON), supersede rule ('' without a key), the number of passable job
        types k, then those k types

  Output:
    one reply per job, in order: acquire's reply, or {'error', message} when checking that job
    raised an error (the other jobs' replies stand; what that job's check wrote before the error
    stays, as with acquire)
]]
--- @include "includes/keys"
--- @include "includes/acquire-one"

local P, now, count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local replies = {}
local i = 4
for j = 1, count do
  local lane, jobId, grace = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local supersedeKey, attempt, rule = ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
  local k = tonumber(ARGV[i + 6])
  local passable = {}
  for t = 1, k do passable[t] = ARGV[i + 6 + t] end
  i = i + 7 + k
  local ok, reply = pcall(acquireOne, P, laneKey(P, lane, 'pending'), lane, jobId, now, grace,
    supersedeKey, attempt, rule, passable)
  if ok then
    replies[j] = reply
  else
    local message = type(reply) == 'table' and (reply.err or cjson.encode(reply)) or tostring(reply)
    replies[j] = {'error', message}
  end
end
return replies
