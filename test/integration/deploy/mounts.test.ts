/** Storage mounts are checked against the cluster before a deploy writes anything. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageObjectName } from '../../../charts/index.ts';
import { InvalidInputError, TransientError } from '../../../src/core/errors.ts';
import { checkMounts } from '../../../src/workers/deploy/mounts.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

let k: SimClients;

beforeAll(async () => {
  k = await startSimWithClients({ settings: { pvcBindDelayMs: 0 } });
});

afterAll(async () => {
  await k?.sim.stop();
});

const mount = (entry: string) => ({ entry, mountPath: `/data/${entry}`, readOnly: false });

/** The claim of storage entry `entry`, as storage:create names it. */
async function claim(entry: string, storageClassName: string): Promise<void> {
  await k.core.createNamespacedPersistentVolumeClaim({
    namespace: 'default',
    body: {
      metadata: { name: storageObjectName(entry) },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName, resources: { requests: { storage: '1Gi' } } },
    },
  });
}

describe('checkMounts', () => {
  it('passes when every mounted claim is Bound', async () => {
    await claim('uploads', 'standard');
    await until(
      async () =>
        (
          await k.core.readNamespacedPersistentVolumeClaim({
            name: storageObjectName('uploads'),
            namespace: 'default',
          })
        ).status?.phase === 'Bound' || undefined,
      'the claim to bind',
    );
    await expect(
      checkMounts(k.core, 'default', [mount('uploads'), mount('uploads')]),
    ).resolves.toBeUndefined();
  });

  it('refuses a missing claim as invalid input, naming the entry and the fix', async () => {
    const err = await checkMounts(k.core, 'default', [mount('uploads'), mount('missing')]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as Error).message).toMatch(
      /storage entry missing has no claim in namespace default: create it with storage:create/,
    );
  });

  it('retries a claim that is not Bound yet', async () => {
    await claim('slow', 'no-such-class');
    const err = await checkMounts(k.core, 'default', [mount('slow')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect((err as Error).message).toMatch(/storage not bound yet: slow \(Pending\)/);
  });
});
