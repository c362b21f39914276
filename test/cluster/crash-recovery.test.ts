/** test/integration/crash-recovery.test.ts on a 3-primary Redis Cluster with 3 queue shards. */
process.env.LONGSHORE_TEST_REDIS = 'cluster';
process.env.LONGSHORE_QUEUE_SHARDS = '3';
await import('../integration/crash-recovery.test.ts');
