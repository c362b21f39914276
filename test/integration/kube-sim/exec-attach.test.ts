/**
 * The exec and attach subresources of kube-sim's Pods over WebSocket (docs/kube-sim.md, "attach
 * and exec"), through the real client-node `Exec` and `Attach`, the real kubectl 1.33, and a raw
 * WebSocket client for the protocol's corners: the v5 channels and status, resize, the end of
 * stdin, attach's stdinOnce, what an exec'd command's exit and a client that goes away do, and
 * the errors with upstream's codes and texts, before and after the upgrade.
 */
import { request } from 'node:http';
import type { Duplex } from 'node:stream';
import { PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, OPCODE } from '../../../infra/kube-sim/server/websocket.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until, within } from '../../helpers/wait.ts';

const NS = 'streams';
const GREETING = 'hello from the config';

let c: SimClients;
let cli: KubeCli;

beforeAll(async () => {
  c = await startSimWithClients({ settings: { podReadyDelayMs: 10 } });
  cli = await kubeCli(c.sim);
  await c.core.createNamespace({ body: { metadata: { name: NS } } });
  await c.core.createNamespacedSecret({
    namespace: NS,
    body: { metadata: { name: 'config-shop' }, stringData: { GREETING } },
  });
  await runningPod('app', { command: ['sleep', 'infinity'] });
});
afterAll(() => c.sim.stop());

const readPod = (name: string) => c.core.readNamespacedPod({ namespace: NS, name });

/** A Pod whose one container `main` runs as given, once its process is running. */
async function runningPod(
  name: string,
  container: Partial<k8s.V1Container>,
  restartPolicy = 'Never',
): Promise<k8s.V1Pod> {
  await c.core.createNamespacedPod({
    namespace: NS,
    body: {
      metadata: { name },
      spec: {
        restartPolicy,
        containers: [
          {
            name: 'main',
            image: 'registry.example/shop:1',
            envFrom: [{ secretRef: { name: 'config-shop' } }],
            ...container,
          },
        ],
      },
    },
  });
  return until(async () => {
    const pod = await readPod(name);
    return pod.status?.phase === 'Running' && c.sim.runtime.running(pod.metadata!.uid!, 'main') && pod;
  }, `Pod ${name} running`);
}

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return () => text;
}

/** client-node's Exec to its status (it closes the connection once the status came). */
async function execStatus(command: string[], stdin: PassThrough | null = null) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const status = await within(
    new Promise<k8s.V1Status>((resolve, reject) => {
      new k8s.Exec(c.kc)
        .exec(NS, 'app', 'main', command, stdout, stderr, stdin, false, resolve)
        .catch(reject);
    }),
    10_000,
    `the status of ${command.join(' ')}`,
  );
  return { status, stdout: out(), stderr: err() };
}

describe('client-node Exec', () => {
  it('runs the command with the container’s environment and ends with Success', async () => {
    const { status, stdout, stderr } = await execStatus(['printenv', 'GREETING']);
    expect(stdout).toBe(`${GREETING}\n`);
    expect(stderr).toBe('');
    expect(status).toEqual({ metadata: {}, status: 'Success' });
  });

  it('reports a non-zero exit as NonZeroExitCode with the code as the ExitCode cause; stderr apart', async () => {
    const { status, stdout, stderr } = await execStatus(['sh', '-c', 'echo out; echo oops >&2; exit 3']);
    expect(stdout).toBe('out\n');
    expect(stderr).toBe('oops\n');
    expect(status).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: command terminated with exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  });

  it('feeds stdin; the end of the client’s stdin (v5 close) is the end of the command’s input', async () => {
    const stdin = new PassThrough();
    stdin.end('one\ntwo\n');
    const { status, stdout } = await execStatus(['cat'], stdin);
    expect(stdout).toBe('one\ntwo\n');
    expect(status.status).toBe('Success');
  });

  it('hangs up the exec’d process when the client goes away', async () => {
    const before = c.sim.runtime.processCount;
    const ws = await new k8s.Exec(c.kc).exec(
      NS,
      'app',
      'main',
      ['sleep', 'infinity'],
      new PassThrough(),
      null,
      null,
      false,
    );
    await until(() => c.sim.runtime.processCount === before + 1, 'the exec’d sleep running');
    ws.close();
    await until(() => c.sim.runtime.processCount === before, 'the exec’d sleep gone');
  });

  it('is in the request log as a get of pods/exec (a WebSocket GET, as kube-apiserver 1.33 has it)', async () => {
    const entries = await until(
      () =>
        c.sim.requests
          .entries({ resource: '/pods', namespace: NS, name: 'app' })
          .filter((r) => r.subresource === 'exec'),
      'exec requests in the log',
    );
    expect(entries[0]).toMatchObject({ verb: 'get', method: 'GET', status: 101, subresource: 'exec' });
  });
});

describe('client-node Attach', () => {
  it('joins an interactive tty shell: echo, output, resize, and the container’s exit ends it', async () => {
    await c.batch.createNamespacedJob({
      namespace: NS,
      body: {
        metadata: { name: 'console' },
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [
                {
                  name: 'main',
                  image: 'registry.example/shop:1',
                  command: ['sh'],
                  stdin: true,
                  tty: true,
                  envFrom: [{ secretRef: { name: 'config-shop' } }],
                },
              ],
            },
          },
        },
      },
    });
    const pod = await until(async () => {
      const [p] = (await c.core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=console' }))
        .items;
      return p?.status?.phase === 'Running' && c.sim.runtime.running(p.metadata!.uid!, 'main') && p;
    }, 'the console Pod running');
    const uid = pod.metadata!.uid!;
    const name = pod.metadata!.name!;
    // A terminal's stdout: client-node sends its size at once and on every 'resize'.
    const stdout = Object.assign(new PassThrough(), { columns: 80, rows: 24 });
    const stdin = new PassThrough();
    const screen = collect(stdout);
    const ws = await new k8s.Attach(c.kc).attach(NS, name, 'main', stdout, stdout, stdin, true);
    const size = () => c.sim.runtime.running(uid, 'main')?.process.size;
    await until(() => size()?.cols === 80 && size()?.rows === 24, 'the first terminal size');

    stdin.write('echo $GREETING\r');
    await until(() => screen().includes(`\r\n${GREETING}\r\n`), 'the greeting on the screen');
    expect(screen()).toContain('echo $GREETING\r\n'); // the line discipline echoed what was typed

    stdout.columns = 132;
    stdout.rows = 40;
    stdout.emit('resize');
    await until(() => size()?.cols === 132 && size()?.rows === 40, 'the new terminal size');

    stdin.write('exit 4\r');
    const terminated = await until(async () => {
      const state = (await readPod(name)).status?.containerStatuses?.[0]?.state;
      return state?.terminated;
    }, 'the shell to exit');
    expect(terminated.exitCode).toBe(4);
    await until(() => ws.readyState === ws.CLOSED, 'the attach session to end');
    const job = await until(async () => {
      const conditions = (await c.batch.readNamespacedJob({ namespace: NS, name: 'console' })).status
        ?.conditions;
      return conditions?.find((x) => x.type === 'Failed' && x.status === 'True');
    }, 'the Job failed');
    expect(job.reason).toBe('BackoffLimitExceeded');
  });

  it('with stdinOnce, the first attached client that goes away closes the container’s stdin', async () => {
    const pod = await runningPod('reader', { command: ['cat'], stdin: true, stdinOnce: true });
    const stdout = new PassThrough();
    const stdin = new PassThrough();
    const out = collect(stdout);
    const ws = await new k8s.Attach(c.kc).attach(NS, 'reader', 'main', stdout, null, stdin, false);
    stdin.write('ping\n');
    await until(() => out() === 'ping\n', 'cat to echo the line');
    ws.close();
    await until(async () => (await readPod('reader')).status?.phase === 'Succeeded', 'cat to end at EOF');
    expect(c.sim.runtime.running(pod.metadata!.uid!, 'main')).toBeUndefined();
  });
});

/** A WebSocket (or other upgrade) request by hand: the answer, or the open connection's frames. */
interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  socket?: Duplex;
  /** Frames from the server, as they come (binary: channel byte first). */
  frames: { opcode: number; payload: Buffer }[];
}

function raw(
  path: string,
  {
    protocols = ['v5.channel.k8s.io'],
    method = 'GET',
    headers = {},
  }: { protocols?: string[]; method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const url = new URL(c.sim.url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      path,
      method,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...(protocols.length > 0 ? { 'Sec-WebSocket-Protocol': protocols.join(', ') } : {}),
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('upgrade', (res, socket, head) => {
      const answer: RawAnswer = { status: 101, headers: res.headers, body: '', socket, frames: [] };
      const reader = new FrameReader(false);
      const take = (chunk: Buffer) => {
        for (const frame of reader.push(chunk)) {
          answer.frames.push(frame);
          // Answer the server's close, as a client does.
          if (frame.opcode === OPCODE.close) socket.end(encodeFrame(OPCODE.close, frame.payload, MASK));
        }
      };
      if (head.length > 0) take(head);
      socket.on('data', take);
      resolve(answer);
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, frames: [] }));
    });
    req.end();
  });
}

const MASK = Buffer.from([1, 2, 3, 4]);
const send = (answer: RawAnswer, channel: number, data: string | Buffer) =>
  answer.socket!.write(
    encodeFrame(OPCODE.binary, Buffer.concat([Buffer.from([channel]), Buffer.from(data)]), MASK),
  );

const channelText = (answer: RawAnswer, channel: number) =>
  answer.frames
    .filter((f) => f.opcode === OPCODE.binary && f.payload[0] === channel)
    .map((f) => f.payload.subarray(1).toString('utf8'))
    .join('');

const closed = (answer: RawAnswer) => answer.frames.find((f) => f.opcode === OPCODE.close);

const execPath = (pod: string, query: string) => `/api/v1/namespaces/${NS}/pods/${pod}/exec?${query}`;

describe('the protocol, by hand', () => {
  it('v5: an empty first message on stdout, the output, then the status and a normal close', async () => {
    const answer = await raw(execPath('app', 'command=sh&command=-c&command=echo%20hi&stdout=true'));
    expect(answer.status).toBe(101);
    expect(answer.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io');
    expect(answer.headers['sec-websocket-accept']).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    await until(() => closed(answer), 'the close frame');
    expect(answer.frames[0]).toEqual({ fin: true, opcode: OPCODE.binary, payload: Buffer.from([1]) });
    expect(channelText(answer, 1)).toBe('hi\n');
    expect(JSON.parse(channelText(answer, 3))).toEqual({ metadata: {}, status: 'Success' });
    expect(closed(answer)?.payload.readUInt16BE(0)).toBe(1000);
  });

  it('v5 wins whatever the client’s order; v4 is the kubelet’s, with containerd’s exit wording', async () => {
    const first = await raw(execPath('app', 'command=true&stdout=1'), {
      protocols: ['v4.channel.k8s.io', 'v5.channel.k8s.io'],
    });
    expect(first.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io');
    first.socket!.destroy();
    const v4 = await raw(
      execPath('app', 'command=sh&command=-c&command=echo%20err%20>%262;%20exit%202&stderr=1'),
      {
        protocols: ['v4.channel.k8s.io'],
      },
    );
    expect(v4.headers['sec-websocket-protocol']).toBe('v4.channel.k8s.io');
    await until(() => closed(v4), 'the close frame');
    expect(v4.frames[0]?.payload).toEqual(Buffer.from([2])); // no stdout asked for: stderr first
    expect(channelText(v4, 2)).toBe('err\n');
    expect(JSON.parse(channelText(v4, 3))).toMatchObject({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      message:
        'command terminated with non-zero exit code: error executing command [sh -c echo err >&2; exit 2], exit code 2',
      details: { causes: [{ reason: 'ExitCode', message: '2' }] },
    });
  });

  it('base64.channel.k8s.io: text messages, the channel as a digit; a failure as plain text', async () => {
    const answer = await raw(
      execPath('app', 'command=sh&command=-c&command=echo%20b64;%20exit%201&stdout=1'),
      {
        protocols: ['base64.channel.k8s.io'],
      },
    );
    await until(() => closed(answer), 'the close frame');
    const texts = answer.frames
      .filter((f) => f.opcode === OPCODE.text)
      .map((f) => f.payload.toString('utf8'));
    expect(texts[0]).toBe('1');
    expect(texts).toContain(`1${Buffer.from('b64\n').toString('base64')}`);
    const error = texts.find((t) => t.startsWith('3'))!;
    expect(Buffer.from(error.slice(1), 'base64').toString('utf8')).toBe(
      'command terminated with non-zero exit code: error executing command [sh -c echo b64; exit 1], exit code 1',
    );
  });

  it('stdin on channel 0 and its close (channel 255); a tty merges stderr into stdout with CR NL', async () => {
    const answer = await raw(execPath('app', 'command=cat&stdin=true&stdout=true&stderr=true&tty=true'));
    send(answer, 0, 'typed\r');
    await until(() => channelText(answer, 1).includes('typed\r\ntyped\r\n'), 'the echo and cat’s output');
    send(answer, 4, '{"Width":100,"Height":30}');
    send(answer, 255, Buffer.from([0]));
    await until(() => closed(answer), 'cat to end at the end of input');
    expect(channelText(answer, 2)).toBe('');
    expect(JSON.parse(channelText(answer, 3)).status).toBe('Success');
  });

  it('refuses before the upgrade as the apiserver does', async () => {
    const missing = await raw(execPath('nope', 'command=true&stdout=1'));
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'pods "nope" not found',
    });
    const container = await raw(`${execPath('app', 'command=true&stdout=1')}&container=web`);
    expect(container.status).toBe(400);
    expect(JSON.parse(container.body).message).toBe('container web is not valid for pod app');
    const plain = await raw(execPath('app', 'command=true&stdout=1'), {
      headers: { Connection: 'keep-alive' },
    });
    expect(plain.status).toBe(400);
    expect(JSON.parse(plain.body).message).toBe('Upgrade request required');
    const put = await raw(execPath('app', 'command=true&stdout=1'), { method: 'PUT' });
    expect(put.status).toBe(405);
    const spdy = await raw(execPath('app', 'command=true&stdout=1'), {
      method: 'POST',
      headers: { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' },
    });
    expect(spdy.status).toBe(400);
    expect(JSON.parse(spdy.body).message).toMatch(
      /over WebSocket only .*KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false/,
    );
    const unknown = await raw(execPath('app', 'command=true&stdout=1'), { protocols: ['v9.channel.k8s.io'] });
    expect(unknown.status).toBe(403);
  });

  it('takes injected faults like any request for the Pod', async () => {
    c.sim.faults.add({ verb: 'get', resource: '/pods', name: 'app', errorRate: 1, status: 503, limit: 1 });
    try {
      const failed = await raw(execPath('app', 'command=true&stdout=1'));
      expect(failed.status).toBe(503);
      expect(JSON.parse(failed.body)).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable' });
      const next = await raw(execPath('app', 'command=true&stdout=1'));
      expect(next.status).toBe(101);
      next.socket!.destroy();
    } finally {
      c.sim.faults.clear();
    }
  });

  it('what the kubelet refuses: in the stream with v5, a plain-text answer otherwise', async () => {
    await c.core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: 'done' },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'i', command: ['true'] }] },
      },
    });
    await until(async () => (await readPod('done')).status?.phase === 'Succeeded', 'Pod done to finish');

    const v5 = await raw(execPath('done', 'command=true&stdout=1'));
    expect(v5.status).toBe(101);
    await until(() => closed(v5), 'the close frame');
    expect(JSON.parse(channelText(v5, 3))).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: unable to upgrade connection: container not found ("main")',
      reason: 'InternalError',
      details: { causes: [{ message: 'unable to upgrade connection: container not found ("main")' }] },
      code: 500,
    });
    const v4 = await raw(execPath('done', 'command=true&stdout=1'), { protocols: ['v4.channel.k8s.io'] });
    expect([v4.status, v4.body]).toEqual([500, 'container not found ("main")']);
    const attach = await raw(`/api/v1/namespaces/${NS}/pods/done/attach?stdout=1`, {
      protocols: ['v4.channel.k8s.io'],
    });
    expect([attach.status, attach.body]).toEqual([500, `container main not found in pod done_${NS}`]);
    const noStreams = await raw(execPath('app', 'command=true'), { protocols: ['v4.channel.k8s.io'] });
    expect([noStreams.status, noStreams.body]).toEqual([
      400,
      'you must specify at least 1 of stdin, stdout, stderr',
    ]);
  });
});

describe('real kubectl 1.33 (WebSocket, v5)', () => {
  it('exec prints the command’s output', async () => {
    const result = await cli.kubectl(['exec', 'app', '-n', NS, '--', 'printenv', 'GREETING']);
    expect(result).toEqual({ code: 0, stdout: `${GREETING}\n`, stderr: '' });
  });

  it('exec -i passes piped stdin and ends at its end', async () => {
    const result = await cli.kubectl(['exec', '-i', 'app', '-n', NS, '--', 'cat'], 'one\ntwo\n');
    expect(result).toEqual({ code: 0, stdout: 'one\ntwo\n', stderr: '' });
  });

  it('exec exits with the command’s exit code', async () => {
    const result = await cli.kubectl(['exec', 'app', '-n', NS, '--', 'sh', '-c', 'echo oops >&2; exit 3']);
    expect(result).toEqual({ code: 3, stdout: '', stderr: 'oops\ncommand terminated with exit code 3\n' });
  });

  it('exec names a container the Pod does not have (the WebSocket refusal, then SPDY’s)', async () => {
    c.sim.requests.reset();
    const result = await cli.kubectl(['exec', 'app', '-n', NS, '-c', 'web', '--', 'true']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error from server (BadRequest): container web is not valid for pod app\n');
    // The refused WebSocket upgrade (GET) makes kubectl's FallbackExecutor try SPDY (POST).
    // Only the refusals: an earlier test's exec sessions on the same Pod (101) are logged when
    // their connections close, which on a loaded machine can be after the reset above.
    let seen: unknown[] = [];
    const refusals = () =>
      c.sim.requests
        .entries({ resource: '/pods', name: 'app' })
        .filter((r) => r.subresource === 'exec' && r.userAgent?.startsWith('kubectl/') && r.status !== 101)
        .map((r) => [r.method, r.verb, r.status]);
    const tries = await until(() => {
      seen = refusals();
      return seen.length >= 2 && seen;
    }, 'both tries in the request log').catch((err: Error) => {
      throw new Error(
        `${err.message}: refusals ${JSON.stringify(seen)}, in flight ${JSON.stringify(c.sim.requests.inFlight({ name: 'app' }))}`,
      );
    });
    expect(tries).toEqual([
      ['GET', 'get', 400],
      ['POST', 'create', 400],
    ]);
  });

  it('exec into a crash-looping container: the kubelet’s refusal, through the v5 stream', async () => {
    await c.core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: 'crash' },
        spec: { containers: [{ name: 'main', image: 'i', command: ['false'] }] },
      },
    });
    // The kubelet's back-off (10 s after the first restart) keeps it down while kubectl runs.
    await until(async () => {
      const state = (await readPod('crash')).status?.containerStatuses?.[0]?.state;
      return state?.waiting?.reason === 'CrashLoopBackOff';
    }, 'the container waiting in CrashLoopBackOff');
    const result = await cli.kubectl(['exec', 'crash', '-n', NS, '--', 'true']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Internal error occurred: unable to upgrade connection: container not found ("main")\n',
    });
  });

  it('attach -i feeds piped lines to the container’s shell; kubectl exits 0 when the container exits', async () => {
    // stdinOnce: the end of kubectl's stdin closes the shell's stdin and the output goes on until
    // it exits (without it containerd ends the session at the end of the client's input).
    await runningPod('shell', { command: ['sh'], stdin: true, stdinOnce: true });
    const result = await cli.kubectl(['attach', '-i', 'shell', '-n', NS], 'echo $GREETING\nexit 5\n');
    expect(result).toEqual({
      code: 0,
      stdout: `${GREETING}\n`,
      stderr: "If you don't see a command prompt, try pressing enter.\n",
    });
    const pod = await until(async () => {
      const p = await readPod('shell');
      return p.status?.phase === 'Failed' && p;
    }, 'the shell Pod to fail');
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(5);
  });
});
