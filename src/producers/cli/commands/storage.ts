import type { Command } from 'commander';
import { action, type CommonOptions, submit } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

interface CreateOptions extends CommonOptions {
  size?: string;
  accessMode?: string;
  storageClass?: string;
  hostPath?: string;
  namespace?: string;
  reclaimPolicy?: string;
}

export function registerStorage(program: Command): void {
  withSubmitOptions(
    program
      .command('storage:create')
      .description('Create a storage entry (a PVC, and a PV when --host-path is set)')
      .argument('<name>', 'entry name')
      .option('--size <quantity>', 'capacity, e.g. 10Gi')
      .option(
        '--access-mode <mode>',
        'ReadWriteOnce (default), ReadOnlyMany, ReadWriteMany or ReadWriteOncePod',
      )
      .option('--storage-class <name>', 'StorageClass (default: the cluster default)')
      .option('--host-path <path>', 'bind a node directory through a PersistentVolume')
      .option('--namespace <ns>', 'namespace of the PVC (default: default)')
      .option('--reclaim-policy <policy>', 'Retain (default) or Delete'),
  ).action(
    action(async (name: string, options: CreateOptions) => {
      const entry: Record<string, unknown> = { name, size: options.size };
      if (options.accessMode) entry.accessMode = options.accessMode;
      if (options.storageClass) entry.storageClass = options.storageClass;
      if (options.hostPath) entry.hostPath = options.hostPath;
      if (options.namespace) entry.namespace = options.namespace;
      if (options.reclaimPolicy) entry.reclaimPolicy = options.reclaimPolicy;
      return submit('storage-create', { entry }, options);
    }),
  );

  withSubmitOptions(
    program
      .command('storage:destroy')
      .description('Destroy a storage entry')
      .argument('<name>', 'entry name'),
  ).action(
    action(async (name: string, options: CommonOptions) => submit('storage-destroy', { name }, options)),
  );

  program
    .command('storage:status')
    .description("A storage entry's PVC phase (runs a storage-status job and prints its answer)")
    .argument('<name>', 'entry name')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print JSON')
    .action(
      action(async (name: string, options: CommonOptions) =>
        submit('storage-status', { name }, { ...options, wait: true }),
      ),
    );
}
