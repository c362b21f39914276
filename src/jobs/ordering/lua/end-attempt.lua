--[[
  end-attempt: replaces attempt record n of a job and, when a done marker is given, records the
  job's outcome. For unordered jobs' ends, and for ordered jobs' retries, hand-backs and lost
  locks (a lane job that ends for good goes through finish instead). A job whose hash is gone
  (removed meanwhile) is left alone: no hash is recreated.

  Input:
    KEYS[1] the job's hash (<prefix>:jobs:<jobId>)

    ARGV[1] attempt number
    ARGV[2] attempt record (JSON)
    ARGV[3] done marker (JSON; '' for none)

  Output:
    1 when the job's hash exists (and was written), else 0
]]
local jobKey, n, attempt, done = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', jobKey) == 0 then return 0 end
if done ~= '' then
  redis.call('HSET', jobKey, 'lsA:' .. n, attempt, 'lsDone', done)
else
  redis.call('HSET', jobKey, 'lsA:' .. n, attempt)
end
return 1
