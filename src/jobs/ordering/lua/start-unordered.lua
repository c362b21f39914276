--[[
  start-unordered: the start of a job that has no lane (run): its done marker if it already
  finished (a duplicate delivery), else records this attempt.

  Input:
    KEYS[1] the job's hash (<prefix>:jobs:<jobId>), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] job id
    ARGV[3] attempt record (JSON)

  Output, one of:
    {'done', doneJson}
    {'go', n, previous[]}  run it as attempt n; previous are the earlier attempt records
]]
--- @include "includes/keys"
--- @include "includes/record-attempt"

local P, jobId, attempt = ARGV[1], ARGV[2], ARGV[3]
local jobKey = jobKeyPrefix(P) .. jobId

local done = redis.call('HGET', jobKey, 'lsDone')
if done then return {'done', done} end

local n, previous = recordAttempt(jobKey, attempt)
return {'go', n, previous}
