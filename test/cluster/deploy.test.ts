/** test/e2e/deploy.test.ts (CLI → Redis → worker → kube-sim) on a 3-primary Redis Cluster with 3 queue shards. */
process.env.LONGSHORE_TEST_REDIS = 'cluster';
process.env.LONGSHORE_QUEUE_SHARDS = '3';
await import('../e2e/deploy.test.ts');
