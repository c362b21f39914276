--[[
  supersededBy(pending, latest, jobPrefix, jobId, seq, supersedeKey, rule, passableTypes)
      -> the id of the job that carries the change of the head `jobId` forward, or false.

    pending, latest  the lane's pending set and its newest-job-per-key hash
    jobPrefix        jobKeyPrefix(prefix)
    jobId, seq       the head and its position (number)
    supersedeKey     the head's supersede key ('' for none: never superseded)
    rule             'any' | 'adjacent'
    passableTypes    list of job types an 'adjacent' walk passes (jobs that are not newer work)

  Fast path: the lane's `latest` entry for the key is this job, or not queued behind it: no newer
  job of the type, nothing else to read. Rule `any` (jobs that change nothing an operator asked
  for: reconcile, sync): the newest one supersedes, whatever lies between. Rule `adjacent`
  (deploy): walk the lane behind the head, in order, through jobs of the same type and of the
  passable types; stop at anything else: another operator change, a reserved slot whose job is not
  added yet (unknown work), or a job of the type whose payload leaves out a field the head's sets
  (absent fields keep the app's value, so the head's setting would be lost). The last job of the
  head's type seen is the one that runs. Past SUPERSEDE_SCAN_MAX jobs behind the head the walk
  stops: the head then just runs (correct, only slower).
]]
--- @include "restates"

local SUPERSEDE_SCAN_MAX = 64

local function supersededBy(pending, latest, jobPrefix, jobId, seq, supersedeKey, rule, passableTypes)
  if supersedeKey == '' then return false end
  local newest = redis.call('HGET', latest, supersedeKey)
  if not newest or newest == jobId then return false end
  local newestSeq = redis.call('ZSCORE', pending, newest)
  if not newestSeq or tonumber(newestSeq) <= seq then return false end
  if rule == 'any' then return newest end

  local passable = {}
  for i = 1, #passableTypes do passable[passableTypes[i]] = true end
  local own = redis.call('HGET', jobPrefix .. jobId, 'name')
  local ownFields = payloadOf(jobPrefix .. jobId)
  local by = false
  local behind = redis.call('ZRANGE', pending, 1, SUPERSEDE_SCAN_MAX)
  for i = 1, #behind do
    local id = behind[i]
    local t = redis.call('HGET', jobPrefix .. id, 'name')
    if t and t == own then
      -- A field the newer job leaves out keeps the app's current value: if this job sets it,
      -- skipping this job would lose it, so the newer job counts as other work.
      if not (ownFields and restates(payloadOf(jobPrefix .. id), ownFields)) then break end
      by = id
      if id == newest then break end
    elseif not (t and passable[t]) then
      break
    end
  end
  return by
end
