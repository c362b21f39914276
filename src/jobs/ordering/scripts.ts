/**
 * The per-lane ordering protocol, as Redis Lua scripts so every step is atomic.
 *
 *   reserve  (producer, before adding the BullMQ job) — next position in the lane; the job id is
 *            `{lane}.{seq}`, so the queue's acceptance order is the lane's order.
 *   acquire  (worker, when a job is picked) — `go` only for the head of the lane, `wait` otherwise.
 *            Heads whose job finished, or whose reservation was abandoned, are dropped first.
 *            Also records the attempt in the job's hash.
 *   peek     (worker, after parking a job) — the same clean-up, then "is this job the head now?".
 *   finish   (worker, when a job ended for good, before BullMQ records it) — done marker, attempt
 *            end, status projection, leave the lane, and the next head so it can be promoted.
 *
 * Every script takes the key prefix and the lane and derives its keys (fewer arguments per call is
 * most of what the layer costs); KEYS[1] is the lane's pending set, for Redis Cluster routing, and
 * all keys share the `{longshore}` hash tag. See docs/ordering.md.
 */

/** Key names, derived from ARGV[1] (prefix) and ARGV[2] (lane). */
const LANE_KEYS = `
local P, lane = ARGV[1], ARGV[2]
local pending = KEYS[1]
local reserved = P .. ':lane:' .. lane .. ':reserved'
local seqKey = P .. ':lane:' .. lane .. ':seq'
local latest = P .. ':lane:' .. lane .. ':latest'
local bull = P .. ':jobs:'
`;

/**
 * Drops finished or abandoned entries from the head of the lane and leaves `head` set to the first
 * live entry (or false). A head is finished when its job has a done marker or sits in BullMQ's
 * completed or failed set. A head whose job does not exist blocks the lane for `grace` ms after
 * its reservation (its producer is between reserve and add), then is given up: the producer died,
 * or the job was removed by hand.
 */
const CLEAN_HEAD = `
local head = false
for i = 1, 200 do
  head = redis.call('ZRANGE', pending, 0, 0)[1]
  if not head or head == jobId then break end
  local finished = false
  if redis.call('EXISTS', bull .. head) == 0 then
    local at = redis.call('HGET', reserved, head)
    finished = (not at) or (now - tonumber(at)) > grace
  elseif redis.call('HEXISTS', bull .. head, 'lsDone') == 1
      or redis.call('ZSCORE', bull .. 'failed', head)
      or redis.call('ZSCORE', bull .. 'completed', head) then
    finished = true
  end
  if not finished then break end
  redis.call('ZREM', pending, head)
  redis.call('HDEL', reserved, head)
  head = false
end
`;

/** Appends an attempt record to the job's hash; sets \`n\` to its number and \`previous\` to the earlier records. */
const RECORD_ATTEMPT = `
local jobKey = bull .. jobId
local n = redis.call('HINCRBY', jobKey, 'lsAN', 1)
local previous = {}
if n > 1 then
  local fields = {}
  for i = 1, n - 1 do fields[i] = 'lsA:' .. i end
  previous = redis.call('HMGET', jobKey, unpack(fields))
  for i = 1, #previous do if not previous[i] then previous[i] = '' end end
end
redis.call('HSET', jobKey, 'lsA:' .. n, attempt)
`;

/**
 * KEYS: pending   ARGV: prefix, lane, now, supersedeKey ('' for none)
 * Returns {jobId, seq}.
 */
export const RESERVE =
  LANE_KEYS +
  `
local now, supersedeKey = ARGV[3], ARGV[4]
local seq, id
-- Skip positions whose id is still taken (the counter was reset while old jobs are retained):
-- BullMQ ignores an add whose id exists, which would lose the new job silently.
for i = 1, 100000 do
  seq = redis.call('INCR', seqKey)
  id = lane .. '.' .. seq
  if redis.call('EXISTS', bull .. id) == 0 then break end
  id = false
end
if not id then return redis.error_reply('no free job id in lane ' .. lane) end
redis.call('ZADD', pending, seq, id)
redis.call('HSET', reserved, id, now)
redis.call('SADD', P .. ':status:lanes', lane)
if supersedeKey ~= '' then redis.call('HSET', latest, supersedeKey, id) end
return {id, seq}
`;

/**
 * Undo a reservation whose add failed, or drop a queued job an operator cancelled.
 * KEYS: pending   ARGV: prefix, lane, jobId, supersedeKey
 */
export const UNRESERVE =
  LANE_KEYS +
  `
local jobId, supersedeKey = ARGV[3], ARGV[4]
redis.call('ZREM', pending, jobId)
redis.call('HDEL', reserved, jobId)
if supersedeKey ~= '' and redis.call('HGET', latest, supersedeKey) == jobId then redis.call('HDEL', latest, supersedeKey) end
return 1
`;

/** Most jobs behind the head that the supersession check reads (beyond it, the head just runs). */
export const SUPERSEDE_SCAN_MAX = 64;

/**
 * Whether the head `jobId` is superseded; sets `by` to the job that carries its change forward.
 * Fast path: the lane's `latest` entry for the key is this job, or not queued behind it — no
 * newer job of the type, nothing to read. Rule `any` (jobs that change nothing an operator asked
 * for: reconcile, sync): the newest one supersedes, whatever lies between. Rule `adjacent`
 * (deploy): walk the lane behind the head, in order, through jobs of the same type and of the
 * passable types; stop at anything else — another operator change, a reserved slot whose job is
 * not added yet (unknown work), or a job of the type whose payload leaves out a field the head's
 * sets (absent fields keep the app's value, so the head's setting would be lost). The last job of
 * the head's type seen is the one that runs.
 */
const SUPERSEDED_BY = `
local by = false
if supersedeKey ~= '' then
  local newest = redis.call('HGET', latest, supersedeKey)
  if newest and newest ~= jobId then
    local newestSeq = redis.call('ZSCORE', pending, newest)
    if newestSeq and tonumber(newestSeq) > seq then
      if rule == 'any' then
        by = newest
      else
        -- The slow path: only here are the helpers defined (a closure per call costs on the fast path).
        local function payloadOf(id)
          local ok, data = pcall(cjson.decode, redis.call('HGET', bull .. id, 'data') or '')
          if ok and type(data) == 'table' and type(data.payload) == 'table' then return data.payload end
          return false
        end
        -- Every field the older payload sets, at every depth, is set in the newer one: fields
        -- merged per key (formation per process type, a process's replicas or resources) keep the
        -- app's value where absent, so presence at the top is not enough. Lists compare by index,
        -- which only errs towards running the older deploy. Depth is bounded by the payload schema.
        local function restates(newer, older)
          if type(older) ~= 'table' then return newer ~= nil end
          if type(newer) ~= 'table' then return false end
          for field, value in pairs(older) do
            if not restates(newer[field], value) then return false end
          end
          return true
        end
        local passable = {}
        for i = 9, #ARGV do passable[ARGV[i]] = true end
        local own = redis.call('HGET', bull .. jobId, 'name')
        local ownFields = payloadOf(jobId)
        local behind = redis.call('ZRANGE', pending, 1, ${SUPERSEDE_SCAN_MAX})
        for i = 1, #behind do
          local id = behind[i]
          local t = redis.call('HGET', bull .. id, 'name')
          if t and t == own then
            -- A field the newer job leaves out keeps the app's current value: if this job sets it,
            -- skipping this job would lose it, so the newer job counts as other work.
            if not (ownFields and restates(payloadOf(id), ownFields)) then break end
            by = id
            if id == newest then break end
          elseif not (t and passable[t]) then
            break
          end
        end
      end
    end
  end
end
`;

/**
 * KEYS: pending   ARGV: prefix, lane, jobId, now, grace, supersedeKey, attemptJson, supersedeRule
 *                       ('any' | 'adjacent' | ''), then the passable job types (rule 'adjacent')
 * Returns one of:
 *   {'done', doneJson}                   already finished (a duplicate delivery)
 *   {'wait', headId}                     another job of the lane goes first
 *   {'superseded', byId, seq}            a newer job of its type carries its change forward
 *   {'go', seq, requeued, n, previous[]} run it as attempt n; previous are the earlier attempt records
 */
export const ACQUIRE =
  LANE_KEYS +
  `
local jobId, now, grace, supersedeKey, attempt, rule = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8]

local done = redis.call('HGET', bull .. jobId, 'lsDone')
if done then return {'done', done} end

local requeued = 0
local seq = redis.call('ZSCORE', pending, jobId)
if not seq then
  -- Not in the lane: retried after it failed for good, or added after its reservation was given
  -- up. Either way it joins the lane at the tail, as if enqueued now.
  seq = redis.call('INCR', seqKey)
  redis.call('ZADD', pending, seq, jobId)
  requeued = 1
end
seq = tonumber(seq)
` +
  CLEAN_HEAD +
  `
if head ~= jobId then return {'wait', head or ''} end
` +
  SUPERSEDED_BY +
  `
if by then return {'superseded', by, seq} end
` +
  RECORD_ATTEMPT +
  `
return {'go', seq, requeued, n, previous}
`;

/**
 * KEYS: pending   ARGV: prefix, lane, jobId, now, grace
 * Returns 1 when jobId is the head of its lane (after dropping finished heads), else 0.
 */
export const PEEK =
  LANE_KEYS +
  `
local jobId, now, grace = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
` +
  CLEAN_HEAD +
  `
if head == jobId then return 1 end
return 0
`;

/**
 * KEYS: pending
 * ARGV: prefix, lane, jobId, now, supersedeKey, doneJson, attemptNumber (0 = none), attemptJson,
 *       then status projection fields and values (last, success, revision, image, updatedAt…)
 * Returns {nextId or '', nextIsDelayed 0|1}.
 */
export const FINISH =
  LANE_KEYS +
  `
local jobId, now, supersedeKey, done, n, attempt = ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]

redis.call('ZREM', pending, jobId)
redis.call('HDEL', reserved, jobId)
if supersedeKey ~= '' and redis.call('HGET', latest, supersedeKey) == jobId then redis.call('HDEL', latest, supersedeKey) end
if n ~= '0' then
  redis.call('HSET', bull .. jobId, 'lsDone', done, 'lsA:' .. n, attempt)
else
  redis.call('HSET', bull .. jobId, 'lsDone', done)
end
redis.call('HSET', P .. ':status:' .. lane, unpack(ARGV, 9))
-- SADD of a known lane changes nothing, so it costs neither a write nor an AOF entry.
redis.call('SADD', P .. ':status:lanes', lane)

local nextId = redis.call('ZRANGE', pending, 0, 0)[1]
if not nextId then return {'', 0} end
local delayed = 0
if redis.call('ZSCORE', bull .. 'delayed', nextId) then delayed = 1 end
return {nextId, delayed}
`;

/**
 * Start of an unordered job (no lane).
 * KEYS: job hash   ARGV: prefix, jobId, attemptJson
 * Returns {'done', doneJson} or {'go', n, previous[]}.
 */
export const START_UNORDERED =
  `
local bull, jobId, attempt = ARGV[1] .. ':jobs:', ARGV[2], ARGV[3]
local done = redis.call('HGET', bull .. jobId, 'lsDone')
if done then return {'done', done} end
` +
  RECORD_ATTEMPT +
  `
return {'go', n, previous}
`;

/**
 * End of a job's attempt: replaces attempt record n and, when `done` is set, records the outcome.
 * For unordered jobs' ends and for ordered jobs' retries, hand-backs and lost locks.
 * KEYS: job hash   ARGV: attemptNumber, attemptJson, doneJson ('' = none)
 */
export const END_ATTEMPT = `
local jobKey, n, attempt, done = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', jobKey) == 0 then return 0 end
if done ~= '' then
  redis.call('HSET', jobKey, 'lsA:' .. n, attempt, 'lsDone', done)
else
  redis.call('HSET', jobKey, 'lsA:' .. n, attempt)
end
return 1
`;
