/** A private Redis plus recording worker processes and an in-test producer, torn down together. */
import type { Redis } from 'ioredis';
import { JobClient } from '../../src/jobs/client.ts';
import { EVENTS_KEY } from '../fixtures/keys.ts';
import { fleetEnv, killAll, type Proc, ROOT, startProcess } from './processes.ts';
import { startTestRedis, type TestRedis } from './test-redis.ts';
import { until, within } from './wait.ts';

export interface RecordedEvent {
  n: number;
  pid: number;
  jobId: string;
  app: string;
  seq?: number;
  attempt: number;
  phase: string;
  [key: string]: unknown;
}

export interface TestFleet {
  redis: TestRedis;
  /** A plain client for inspecting Redis. */
  client: Redis;
  jobs: JobClient;
  env: Record<string, string>;
  workers: Proc[];
  startWorker(extraEnv?: Record<string, string>, concurrency?: number): Promise<Proc>;
  events(): Promise<RecordedEvent[]>;
  waitForEvent(
    match: (e: RecordedEvent) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<RecordedEvent>;
  jobState(id: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestFleet(extraEnv: Record<string, string> = {}): Promise<TestFleet> {
  const redis = await startTestRedis();
  const env = fleetEnv(redis.url, extraEnv);
  const client = redis.connect();
  const producerConnection = redis.connect();
  const jobs = new JobClient(producerConnection, { attempts: 5, backoffMs: 50 });
  // Redis restarts are part of some tests: connection errors are expected, not failures.
  jobs.onQueueError(() => undefined);
  const workers: Proc[] = [];
  const fleet: TestFleet = {
    redis,
    client,
    jobs,
    env,
    workers,
    async startWorker(workerEnv = {}, concurrency = 2) {
      const worker = startProcess(`${ROOT}test/fixtures/recording-worker.ts`, [String(concurrency)], {
        ...env,
        ...workerEnv,
      });
      workers.push(worker);
      await worker.waitForLine(/recording-worker ready/);
      return worker;
    },
    async events() {
      return (await client.lrange(EVENTS_KEY, 0, -1)).map((raw) => JSON.parse(raw) as RecordedEvent);
    },
    waitForEvent(match, what, timeoutMs = 30_000) {
      return until(async () => (await fleet.events()).find(match), what, { timeoutMs });
    },
    async jobState(id) {
      const job = await jobs.queueFor(id).getJob(id);
      return job ? job.getState() : 'missing';
    },
    async stop() {
      for (const w of workers) w.kill('SIGTERM');
      // Up to 15 s for a clean exit; whatever is left is SIGKILLed below.
      await within(Promise.all(workers.map((w) => w.exited)), 15_000, 'workers to exit on SIGTERM').catch(
        () => undefined,
      );
      await killAll();
      await jobs.close().catch(() => undefined);
      jobs.connection.disconnect();
      client.disconnect();
      await redis.stop();
    },
  };
  return fleet;
}
