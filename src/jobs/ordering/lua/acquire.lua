--[[
  acquire: the worker's turn check when BullMQ hands it a job of a lane. Drops finished or
  abandoned heads (cleanHead); answers `go` only to the head of the lane, and only when no newer
  job of its type carries its change forward (supersededBy); records the attempt on `go`.

  Input:
    KEYS[1] the lane's pending set (<prefix>:lane:<lane>:pending), for Redis Cluster routing

    ARGV[1] key prefix ({longshore})
    ARGV[2] lane id
    ARGV[3] job id
    ARGV[4] now, ms
    ARGV[5] reservation grace, ms
    ARGV[6] supersede key ('' for none)
    ARGV[7] attempt record (JSON), stored on `go`
    ARGV[8] supersede rule: 'any' | 'adjacent' (only with a supersede key)
    ARGV[9...] the job types an 'adjacent' walk passes (only with a supersede key)

  Output, one of:
    {'done', doneJson}                    already finished (a duplicate delivery)
    {'wait', headId}                      another job of the lane goes first ('' if none is live)
    {'superseded', byId, seq}             a newer job of its type carries its change forward
    {'go', seq, requeued, n, previous[], renamedTo, cacheFence}
                                          run it as attempt n; requeued 1 when it joined the lane's
                                          tail now; previous are the earlier attempt records;
                                          renamedTo the lane's rename marker ('' for none);
                                          cacheFence the lane's cache fence ('' for none)
]]
--- @include "includes/keys"
--- @include "includes/acquire-one"

return acquireOne(ARGV[1], KEYS[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6],
  ARGV[7], ARGV[8], {unpack(ARGV, 9)})
