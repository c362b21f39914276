/**
 * `npm run bench -- run-keystroke [N]`: the keystroke round trip of an interactive run — a byte
 * XADDed to the run's input stream (what the CLI does, src/producers/cli/commands/run-tty.ts), read
 * by the worker (XREAD BLOCK), written to the container's stdin over the attach WebSocket, echoed
 * by the container's tty, sent back over the WebSocket, XADDed to the output stream by the worker
 * and read by the "CLI" (XREAD BLOCK). One worker process, kube-sim over HTTP, a private
 * redis-server; the container runs `cat` with a tty. N keystrokes (default 200), one at a time.
 */
import { Redis } from 'ioredis';
import { JobClient } from '../src/jobs/client.ts';
import { keys } from '../src/jobs/keys.ts';
import { addTty, parseTtyOut, readTty, ttyInFields } from '../src/jobs/tty-stream.ts';
import { startDeployFleet } from '../test/helpers/deploy-fleet.ts';
import { printTable } from './fixtures/report.ts';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function benchRunKeystroke(argv: string[]): Promise<void> {
  const n = Number(argv[0] ?? 200);
  const fleet = await startDeployFleet();
  const redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  const blocking = redis.duplicate();
  try {
    await fleet.startWorker();
    await fleet.deployWithRegistry(
      'shop',
      'registry.example.com/shop:1',
      'web: bundle exec puma\n',
      JSON.stringify({ formation: { web: { quantity: 1 } } }),
    );
    const client = new JobClient(redis, { attempts: 1, backoffMs: 1000 });
    const job = await client.enqueue(
      'run',
      { app: 'shop', command: ['cat'], env: {}, tty: true, detach: false },
      'bench',
    );
    const inKey = keys.ttyIn(job.id);
    const outKey = keys.ttyOut(job.id);
    let lastId = '0-0';
    let output = '';
    const waitFor = async (count: number, char: string, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (output.split(char).length - 1 < count) {
        if (Date.now() > deadline) throw new Error(`no echo of ${JSON.stringify(char)} #${count}`);
        const got = await readTty(blocking, outKey, lastId, 1_000);
        lastId = got.lastId;
        for (const f of got.entries) {
          const e = parseTtyOut(f);
          if (e?.kind === 'data') output += e.data.toString('latin1');
          if (e?.kind === 'end') throw new Error(`run ended: ${e.reason}`);
        }
      }
    };
    const beat = setInterval(() => void addTty(redis, inKey, ttyInFields({ kind: 'beat' })), 1_000);
    const key = (s: string) => addTty(redis, inKey, ttyInFields({ kind: 'data', data: Buffer.from(s) }));
    // Warm-up: the pod starts and the worker attaches; typed-ahead input is delivered then.
    await key('w');
    await waitFor(1, 'w', 60_000);
    const times: number[] = [];
    for (let i = 1; i <= n; i++) {
      const t0 = performance.now();
      await key('x');
      await waitFor(i, 'x', 10_000);
      times.push(performance.now() - t0);
    }
    await key('\r\u0004');
    clearInterval(beat);
    const sorted = [...times].sort((a, b) => a - b);
    const ms = (v: number) => v.toFixed(2);
    console.log(`\nrun -it keystroke round trip, ${n} keystrokes to \`cat\` with a tty, one worker\n`);
    printTable(
      ['path', 'keys', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
      [
        [
          'CLI → Redis → worker → pod → back',
          String(n),
          ms(percentile(sorted, 50)),
          ms(percentile(sorted, 90)),
          ms(percentile(sorted, 99)),
          ms(sorted.at(-1)!),
        ],
      ],
    );
    const p99 = percentile(sorted, 99);
    console.log(`\ntarget p99 < 20 ms: ${p99 < 20 ? 'PASS' : 'FAIL'} (${ms(p99)} ms)`);
  } finally {
    blocking.disconnect();
    redis.disconnect();
    await fleet.stop();
  }
}
