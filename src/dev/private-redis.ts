/**
 * A private `redis-server` on a free loopback port, for `longshore dev` (`npm start`) and tests.
 * Append-only persistence with fsync on every write, so a restart (even kill -9) loses nothing:
 * that is what the fleet's "no job lost" promise assumes of a production Redis.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { InfrastructureError } from '../core/errors.ts';
import { removeRedisPidFile, writeRedisPidFile } from './redis-pid-file.ts';

export interface PrivateRedisOptions {
  /** Data directory; a fresh temporary one (removed on stop) when absent. */
  dir?: string;
  port?: number;
  /** `always` (default) survives kill -9 without loss; `everysec` is Redis's production default. */
  appendfsync?: 'always' | 'everysec';
  /**
   * Record the server's PID, port and data directory here from the moment it is spawned (see
   * redis-pid-file.ts); removed when it exits while this process watches it.
   */
  pidFile?: string;
  /**
   * Run in its own process group, so a terminal's Ctrl-C (SIGINT to the whole foreground group)
   * reaches only the parent, which stops the worker before Redis rather than after.
   */
  detached?: boolean;
}

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly pid: number | undefined;
  /** Graceful stop (SHUTDOWN, AOF flushed). */
  stop(): Promise<void>;
  /** SIGKILL, like a crashed or OOM-killed Redis. */
  kill(): Promise<void>;
  /** Start again on the same port and data directory. */
  start(): Promise<void>;
}

export function redisServerBinary(): string {
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new InfrastructureError(
      `redis-server not found (tried "${bin}"): install it (Debian: apt-get install -y redis-server) or set REDIS_URL / REDIS_SERVER_BIN`,
    );
  }
  return bin;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const bin = redisServerBinary();
  const temporary = !options.dir;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'longshore-redis-'));
  mkdirSync(dir, { recursive: true });
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;

  const launch = async () => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      options.appendfsync ?? 'always',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      '--protected-mode',
      'yes',
      '--logfile',
      join(dir, 'redis.log'),
    ];
    const proc = spawn(bin, args, { stdio: 'ignore', detached: options.detached ?? false });
    child = proc;
    const { pidFile } = options;
    if (pidFile && proc.pid !== undefined) {
      const pid = proc.pid;
      writeRedisPidFile(pidFile, { pid, port, dir });
      proc.once('exit', () => removeRedisPidFile(pidFile, pid));
    }
    // A parent that exits (even on an uncaught error) takes its private Redis with it.
    const reap = () => proc.kill('SIGKILL');
    process.once('exit', reap);
    proc.once('exit', () => process.off('exit', reap));
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) =>
        reject(
          new InfrastructureError(`redis-server exited with code ${code}; see ${join(dir, 'redis.log')}`),
        ),
      ),
    );
    exited.catch(() => undefined);
    await Promise.race([waitUntilPing(port, 10_000), exited]);
  };

  const waitExit = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill(signal);
    });
  };

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    get pid() {
      return child?.pid;
    },
    async stop() {
      await waitExit('SIGTERM');
      if (temporary) rmSync(dir, { recursive: true, force: true });
    },
    async kill() {
      await waitExit('SIGKILL');
    },
    async start() {
      await launch();
    },
  };
}

async function waitUntilPing(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const client = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      // Still loading the AOF answers LOADING: keep waiting until it serves commands.
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      client.disconnect();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new InfrastructureError(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
}
