/**
 * A process type's autoscaling, as app.json `formation.<type>.autoscaling` names it (Dokku's k3s
 * scheduler, plugins/scheduler-k3s: `min_quantity`, `max_quantity`, `polling_interval_seconds`,
 * `cooldown_seconds`, `triggers: [{ type, metadata }]`), in the camel-cased form the deploy payload,
 * the AppSpec and the chart values carry. The chart renders it as a KEDA ScaledObject, or without
 * KEDA as an `autoscaling/v2` HorizontalPodAutoscaler (charts/app/autoscaler.ts).
 */
import { z } from 'zod';

/**
 * KEDA's scaler names (keda.sh/docs/latest/scalers; the cases of buildScaler in
 * kedacore/keda): a trigger of any other type would be refused by KEDA's admission webhook only
 * after the write, so longshore refuses it before any.
 */
export const KEDA_TRIGGER_TYPES = [
  'activemq',
  'apache-kafka',
  'arangodb',
  'artemis-queue',
  'aws-cloudwatch',
  'aws-dynamodb',
  'aws-dynamodb-streams',
  'aws-kinesis-stream',
  'aws-sqs-queue',
  'azure-app-insights',
  'azure-blob',
  'azure-data-explorer',
  'azure-eventhub',
  'azure-log-analytics',
  'azure-monitor',
  'azure-pipelines',
  'azure-queue',
  'azure-servicebus',
  'beanstalkd',
  'cassandra',
  'couchdb',
  'cpu',
  'cron',
  'datadog',
  'dynatrace',
  'elasticsearch',
  'etcd',
  'external',
  'external-push',
  'gcp-cloudtasks',
  'gcp-pubsub',
  'gcp-stackdriver',
  'gcp-storage',
  'github-runner',
  'graphite',
  'huawei-cloudeye',
  'ibmmq',
  'influxdb',
  'kafka',
  'kubernetes-workload',
  'liiklus',
  'loki',
  'memory',
  'metrics-api',
  'mongodb',
  'mssql',
  'mysql',
  'nats-jetstream',
  'new-relic',
  'nsq',
  'openstack-metric',
  'openstack-swift',
  'postgresql',
  'predictkube',
  'prometheus',
  'pulsar',
  'rabbitmq',
  'redis',
  'redis-cluster',
  'redis-cluster-streams',
  'redis-sentinel',
  'redis-sentinel-streams',
  'redis-streams',
  'selenium-grid',
  'solace-event-queue',
  'solr',
  'splunk',
  'stan',
  'temporal',
] as const;

/** The triggers an `autoscaling/v2` HPA can express itself (Resource metrics), when KEDA is absent. */
export const RESOURCE_TRIGGER_TYPES = ['cpu', 'memory'] as const;

export const AUTOSCALING_REPLICAS_MAX = 1000;

/** A day: longer polling or cooldown is most likely a unit mistake (milliseconds). */
export const AUTOSCALING_SECONDS_MAX = 86_400;

export const autoscalingTrigger = z
  .object({
    type: z.enum(KEDA_TRIGGER_TYPES),
    /** The scaler's settings, strings as KEDA takes them. */
    metadata: z.record(z.string().min(1).max(253), z.string().max(4096)),
  })
  .strict();

export const autoscaling = z
  .object({
    minReplicas: z.number().int().min(0).max(AUTOSCALING_REPLICAS_MAX),
    maxReplicas: z.number().int().min(1).max(AUTOSCALING_REPLICAS_MAX),
    pollingIntervalSeconds: z.number().int().min(1).max(AUTOSCALING_SECONDS_MAX).optional(),
    cooldownSeconds: z.number().int().min(0).max(AUTOSCALING_SECONDS_MAX).optional(),
    triggers: z.array(autoscalingTrigger).min(1).max(20),
  })
  .strict()
  .refine((a) => a.minReplicas <= a.maxReplicas, {
    path: ['minReplicas'],
    message: 'must not be above maxReplicas',
  });

export type Autoscaling = z.infer<typeof autoscaling>;

/** Whether every trigger is one an HPA can carry without KEDA. */
export function resourceTriggersOnly(a: Autoscaling): boolean {
  return a.triggers.every((t) => (RESOURCE_TRIGGER_TYPES as readonly string[]).includes(t.type));
}
