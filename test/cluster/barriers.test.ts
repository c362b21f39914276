/**
 * test/integration/barriers.test.ts on a 3-primary Redis Cluster with 3 queue shards: most of its
 * renames hold lanes of two shards (old1 → new1 does), which the two-lane lock and the holds of
 * src/jobs/cross-shard-lanes.ts must order like one script does: FIFO in both lanes, exclusion,
 * and crossing renames that all finish.
 */
process.env.LONGSHORE_TEST_REDIS = 'cluster';
process.env.LONGSHORE_QUEUE_SHARDS = '3';
await import('../integration/barriers.test.ts');
