/**
 * test/integration/ordering.test.ts on a 3-primary Redis Cluster with 3 queue shards: the same
 * test body (imported, not copied), its fleet's processes inheriting the two settings.
 */
process.env.LONGSHORE_TEST_REDIS = 'cluster';
process.env.LONGSHORE_QUEUE_SHARDS = '3';
await import('../integration/ordering.test.ts');
