import type { Command } from 'commander';
import { DRY_RUN_OPTION, submitAppJob } from '../dry-run.ts';
import { keyValues, table } from '../output.ts';
import { action, type CommonOptions, type ResultView, submit } from '../runtime.ts';
import { stdoutStyle } from '../style.ts';
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
    .description("A storage entry's PVC phase and capacity (runs a storage-status job and prints its answer)")
    .argument('<name>', 'entry name')
    .option('--wait', 'wait for the answer (always: the answer is the job outcome)')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print JSON')
    .action(
      action(async (name: string, options: CommonOptions) =>
        submit('storage-status', { name }, { ...options, wait: true }, undefined, statusView),
      ),
    );

  // The CLI holds no cluster credentials: a worker reads the entries and answers in the job's outcome.
  program
    .command('storage:list')
    .description('List the storage entries with their PVC phase and capacity (runs a storage-list job)')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print JSON')
    .action(
      action(async (options: CommonOptions) =>
        submit('storage-list', {}, { ...options, wait: true }, undefined, listView),
      ),
    );

  withSubmitOptions(
    program
      .command('storage:mount')
      .description('Mount a storage entry into every process and cron task of an app, and deploy')
      .argument('<app>', 'app name')
      .argument('<mount>', 'ENTRY:/path, or ENTRY:/path:ro for a read-only mount')
      .option('--sub-path <path>', 'mount this directory of the volume instead of its root')
      .option('--process <type>', "mount into this process type's Deployment only (no CronJob)")
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, spec: string, options: MountOptions) => {
      const mount: Record<string, unknown> = parseMount(spec);
      if (options.subPath !== undefined) mount.subPath = options.subPath;
      if (options.process !== undefined) mount.process = options.process;
      return submitAppJob('mounts', { app, action: 'mount', mount }, options);
    }),
  );

  withSubmitOptions(
    program
      .command('storage:unmount')
      .description('Unmount a storage entry from an app, and deploy')
      .argument('<app>', 'app name')
      .argument('<mount>', 'ENTRY:/path as it was mounted')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, spec: string, options: CommonOptions) => {
      const { entry, mountPath } = parseMount(spec);
      return submitAppJob('mounts', { app, action: 'unmount', mount: { entry, mountPath } }, options);
    }),
  );
}

/** An entry as the storage-status and storage-list jobs answer (src/workers/handlers/storage-status.ts). */
interface EntryStatus {
  entry: string;
  namespace: string;
  claim: string;
  size: string;
  accessMode: string;
  hostPath?: string;
  phase: string;
  capacity?: string;
  storageClass?: string;
  volume?: string;
}

const capacityOf = (e: EntryStatus) => e.capacity ?? `${e.size} requested`;

// The job's answer is printed as it is: --json output stays the job's result.
const asIs = async (result: unknown) => result;

const statusView: ResultView = {
  enrich: asIs,
  print(result, output) {
    const e = result as EntryStatus;
    const style = stdoutStyle();
    const rows: [string, string][] = [
      ['entry', e.entry],
      ['phase', style.status(e.phase)],
      ['capacity', capacityOf(e)],
      ['access mode', e.accessMode],
      ['claim', `${e.namespace}/${e.claim}`],
      ...(e.storageClass !== undefined
        ? [['storage class', e.storageClass || '"" (none)'] as [string, string]]
        : []),
      ...(e.volume ? [['volume', e.volume] as [string, string]] : []),
      ...(e.hostPath ? [['host path', e.hostPath] as [string, string]] : []),
    ];
    for (const line of keyValues(rows.map(([k, v]) => [style.bold(k), v]))) output.out(line);
  },
};

const listView: ResultView = {
  enrich: asIs,
  print(result, output) {
    const entries = (result as { entries: EntryStatus[] }).entries;
    if (entries.length === 0) {
      output.out('no storage entries (create one: longshore storage:create NAME --size 1Gi)');
      return;
    }
    const style = stdoutStyle();
    output.out(
      table(
        ['ENTRY', 'PHASE', 'CAPACITY', 'ACCESS MODE', 'CLAIM', 'HOST PATH'],
        entries.map((e) => [
          e.entry,
          style.status(e.phase),
          capacityOf(e),
          e.accessMode,
          `${e.namespace}/${e.claim}`,
          e.hostPath ?? '-',
        ]),
        style.bold,
      ),
    );
  },
};

interface MountOptions extends CommonOptions {
  subPath?: string;
  process?: string;
}

/**
 * `ENTRY:/path[:ro|:rw]` → its parts. Left loose on purpose: what is missing or malformed is
 * named by the payload's validation (`mount.mountPath: …`), with exit code 2.
 */
export function parseMount(text: string): { entry: string; mountPath?: string; readOnly: boolean } {
  const colon = text.indexOf(':');
  if (colon < 0) return { entry: text, readOnly: false };
  const entry = text.slice(0, colon);
  let mountPath = text.slice(colon + 1);
  let readOnly = false;
  const mode = /:(ro|rw)$/.exec(mountPath);
  if (mode) {
    readOnly = mode[1] === 'ro';
    mountPath = mountPath.slice(0, -3);
  }
  return { entry, mountPath, readOnly };
}
