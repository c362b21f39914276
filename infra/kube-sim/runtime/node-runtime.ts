/**
 * The simulated node's container runtime: the processes of the containers the kubelet model
 * started, one instance per (re)start, each with its log, plus the commands exec'd into them.
 * The kubelet (controllers/pod-lifecycle.ts) starts instances and decides what an exit means;
 * the log endpoint reads instances' logs by container ID (as the kubelet finds a log by the
 * status's containerID); attach and exec go through `attach` and `exec`.
 *
 * Per container the runtime keeps the running instance and the last terminated one (`previous`:
 * `kubectl logs --previous`), as the kubelet keeps the last dead container; older instances and
 * their logs are dropped. Removing a Pod kills its processes and forgets its logs; `stop()` kills
 * everything, so a stopped simulator leaves no process (and no timer) behind.
 */
import { ContainerLog } from './container-log.ts';
import { type ContainerProcess, type ProcessSpec, spawnProcess } from './process.ts';
import type { Environment } from './shell.ts';
import type { Signal } from './signals.ts';

export interface InstanceExit {
  exitCode: number;
  signal?: Signal;
  finishedAt: Date;
}

/** One run of a container: what the status's containerID names. */
export interface ContainerInstance {
  readonly containerID: string;
  readonly startedAt: Date;
  readonly process: ContainerProcess;
  readonly log: ContainerLog;
  /** The environment it started with (exec'd commands get the same). */
  readonly env: Environment;
  exit?: InstanceExit;
}

export interface ContainerSlot {
  readonly podKey: string;
  readonly name: string;
  restartCount: number;
  current?: ContainerInstance;
  previous?: ContainerInstance;
  readonly stdinOnce: boolean;
  readonly hostname: string;
  readonly workingDir: string | undefined;
  readonly execs: Set<ContainerProcess>;
  lastPid: number;
}

export interface StartOptions extends ProcessSpec {
  containerID: string;
  startedAt: Date;
  restartCount: number;
  /** stdin closes when the first attach session detaches. */
  stdinOnce?: boolean;
}

/** An attach session: the container's main process, and the end of the session. */
export interface Attachment {
  readonly process: ContainerProcess;
  /** The client went away; with `stdinOnce` the container's stdin closes. */
  detach(): void;
}

export class NodeRuntime {
  private readonly pods = new Map<string, Map<string, ContainerSlot>>();
  private readonly logs = new Map<string, ContainerLog>();
  private stopped = false;

  /** Told `podKey` when a container of that Pod exits: the kubelet (none without controllers). */
  private exitListener: ((podKey: string) => void) | undefined;

  setExitListener(listener: (podKey: string) => void): void {
    this.exitListener = listener;
  }

  container(podUid: string, name: string): ContainerSlot | undefined {
    return this.pods.get(podUid)?.get(name);
  }

  /** Starts a new instance of the container (the previous one must have exited). */
  start(podUid: string, podKey: string, name: string, options: StartOptions): ContainerInstance {
    if (this.stopped) throw new Error('the node runtime is stopped');
    let containers = this.pods.get(podUid);
    if (!containers) {
      containers = new Map();
      this.pods.set(podUid, containers);
    }
    let slot = containers.get(name);
    if (!slot) {
      slot = {
        podKey,
        name,
        restartCount: options.restartCount,
        stdinOnce: options.stdinOnce ?? false,
        hostname: options.hostname,
        workingDir: options.workingDir,
        execs: new Set(),
        lastPid: 1,
      };
      containers.set(name, slot);
    }
    if (slot.current && !slot.current.exit) slot.current.process.kill('SIGKILL');
    if (slot.previous) this.logs.delete(slot.previous.containerID);
    slot.previous = slot.current;
    slot.restartCount = options.restartCount;
    const log = new ContainerLog();
    const process = spawnProcess({ ...options, pid: 1 });
    process.onOutput((stream, chunk) => log.write(stream, chunk));
    const instance: ContainerInstance = {
      containerID: options.containerID,
      startedAt: options.startedAt,
      process,
      log,
      env: options.env,
    };
    slot.current = instance;
    this.logs.set(instance.containerID, log);
    const owner = slot;
    process.exited.then((exit) => {
      instance.exit = { ...exit, finishedAt: new Date() };
      log.close();
      if (!this.stopped && this.pods.get(podUid)?.get(name) === owner) {
        this.exitListener?.(podKey);
      }
    });
    return instance;
  }

  /** The log of a container instance (current or previous) by its containerID. */
  log(containerID: string): ContainerLog | undefined {
    return this.logs.get(containerID);
  }

  /** The running main process of a container, or undefined. */
  running(podUid: string, name: string): ContainerInstance | undefined {
    const current = this.container(podUid, name)?.current;
    return current && !current.exit ? current : undefined;
  }

  /**
   * Runs a command in a running container with the container's environment (the exec
   * subresource); undefined when the container is not running. Its output is not the container's
   * log. A program kube-sim does not have is not found (`exec: "x": executable file not found in
   * $PATH`, 127; `sh: 1: x: not found` inside a script) unless `unknown` says otherwise.
   */
  exec(
    podUid: string,
    name: string,
    argv: readonly string[],
    options: { stdin?: boolean; tty?: boolean; unknown?: ProcessSpec['unknown'] } = {},
  ): ContainerProcess | undefined {
    const slot = this.container(podUid, name);
    const instance = this.running(podUid, name);
    if (!slot || !instance) return undefined;
    const process = spawnProcess({
      argv,
      env: instance.env,
      stdin: options.stdin ?? false,
      tty: options.tty ?? false,
      unknown: options.unknown ?? 'not-found',
      hostname: slot.hostname,
      ...(slot.workingDir !== undefined ? { workingDir: slot.workingDir } : {}),
      pid: ++slot.lastPid,
    });
    slot.execs.add(process);
    process.exited.then(() => slot.execs.delete(process));
    return process;
  }

  /** Attaches to a running container's main process (the attach subresource). */
  attach(podUid: string, name: string): Attachment | undefined {
    const slot = this.container(podUid, name);
    const instance = this.running(podUid, name);
    if (!slot || !instance) return undefined;
    let detached = false;
    return {
      process: instance.process,
      detach: () => {
        if (detached) return;
        detached = true;
        if (slot.stdinOnce) instance.process.endInput();
      },
    };
  }

  /** Kills a Pod's processes (it is being deleted, or has finished); logs stay. */
  killPod(podUid: string, signal: Signal = 'SIGKILL'): void {
    for (const slot of this.pods.get(podUid)?.values() ?? []) {
      slot.current?.process.kill(signal);
      for (const p of slot.execs) p.kill(signal);
    }
  }

  /** The Pod is gone: its processes are killed and its logs forgotten. */
  removePod(podUid: string): void {
    this.killPod(podUid);
    for (const slot of this.pods.get(podUid)?.values() ?? []) {
      if (slot.current) this.logs.delete(slot.current.containerID);
      if (slot.previous) this.logs.delete(slot.previous.containerID);
    }
    this.pods.delete(podUid);
  }

  /** How many processes are running (main and exec'd): what stop() leaves is 0. */
  get processCount(): number {
    let n = 0;
    for (const containers of this.pods.values())
      for (const slot of containers.values()) {
        if (slot.current && !slot.current.exit) n++;
        n += slot.execs.size;
      }
    return n;
  }

  stop(): void {
    this.stopped = true;
    for (const uid of [...this.pods.keys()]) this.removePod(uid);
  }
}
