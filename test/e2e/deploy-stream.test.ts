/**
 * A job's stream as the CLI shows it (src/producers/ops/stream-render.ts).
 *
 * The README's "5-minute tour" in a real terminal: the CLI runs inside tmux (a pty, so it renders
 * for a person), against a fleet of real worker processes and kube-sim; the screen is compared
 * with the expected text: for each `--wait`, the steps in order, details indented under them, no
 * line twice, the outcome last. The rollout lines were redrawn in place: the raw bytes the CLI
 * wrote (tmux pipe-pane) hold carriage returns and erase sequences and several states of a line,
 * where the screen shows each Deployment's line once, as it ended.
 *
 * Not on a terminal: `--json` is one JSON event per line on stdout, the outcome last; plain lines
 * hold no terminal control and no line twice; `jobs:show` lists the stream decoded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/jobs/stream-events.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI, ROOT } from '../helpers/processes.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;
const SOCKET = `longshore-tour-${process.pid}`;
const SESSION = 'tour';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

const HELLO = [
  '--image',
  'nginx:1.27',
  '--procfile',
  'examples/hello/Procfile',
  '--app-json',
  'examples/hello/app.json',
];
/** The tour's commands (README.md, "A 5-minute tour"), as typed there. */
const TOUR: string[][] = [
  ['deploy', 'hello', ...HELLO, '--wait'],
  ['apps:status', 'hello'],
  ['deploy', 'hello', ...HELLO, '--wait'],
  ['config:set', 'hello', 'GREETING=hi', '--wait'],
  ['domains:add', 'hello', 'hello.example.com', '--wait'],
  ['ps:scale', 'hello', 'worker=2', '--wait'],
];

beforeAll(async () => {
  fleet = await startDeployFleet();
  // Pods take a moment to become ready, as on a cluster: a rollout goes through several states.
  fleet.sim.settings.podReadyDelayMs = 700;
  await fleet.startWorker();
});

afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
  await fleet?.stop();
});

interface Section {
  command: string;
  lines: string[];
  exit: number;
}

/** The screen cut at each `$ longshore …` line, up to that command's `[exit N]`. */
function sections(screen: string): Section[] {
  const result: Section[] = [];
  let current: Section | undefined;
  for (const line of screen.split('\n').map((l) => l.trimEnd())) {
    if (line.startsWith('$ longshore ')) {
      current = { command: line.slice(2), lines: [], exit: -1 };
      result.push(current);
    } else if (current && /^\[exit \d+\]$/.test(line)) {
      current.exit = Number(/\d+/.exec(line)![0]);
      current = undefined;
    } else if (current) current.lines.push(line);
  }
  return result;
}

describe('the README tour in a terminal', () => {
  it('streams every --wait as steps, details and a live rollout line, the outcome last, no line twice', async () => {
    const raw = join(fleet.dir, 'tour.raw');
    const done = join(fleet.dir, 'tour.done');
    const exports = Object.entries(fleet.env)
      .map(([k, v]) => `export ${k}=${quote(v)}`)
      .join('\n');
    const run = (args: string[]) =>
      `printf '%s\\n' ${quote(`$ longshore ${args.join(' ')}`)}\n` +
      `${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(' ')}\necho "[exit $?]"\n`;
    const script = fleet.file(
      'tour.sh',
      `${exports}\ncd ${quote(ROOT)}\nread _\n${TOUR.map(run).join('')}touch ${quote(done)}\nread _\n`,
    );
    tmux('new-session', '-d', '-s', SESSION, '-x', '200', '-y', '50', `sh ${quote(script)}`);
    tmux('set-option', '-t', SESSION, 'history-limit', '5000');
    // Every byte the commands write, escape sequences included, from before the first one.
    tmux('pipe-pane', '-t', SESSION, '-o', `cat >> ${quote(raw)}`);
    tmux('send-keys', '-t', SESSION, 'Enter');
    const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', SESSION);
    try {
      await until(() => existsSync(done) || undefined, 'the tour to finish', { timeoutMs: 150_000 });
    } catch (err) {
      throw new Error(`${(err as Error).message}\nscreen:\n${screen()}`);
    }
    const shown = sections(screen());
    const context = `screen:\n${screen()}`;
    expect(
      shown.map((s) => [s.command, s.exit]),
      context,
    ).toEqual(TOUR.map((args) => [`longshore ${args.join(' ')}`, 0]));
    const [first, status, again, config, domains, scale] = shown as [
      Section,
      Section,
      Section,
      Section,
      Section,
      Section,
    ];

    expect(first.lines, context).toEqual([
      'enqueued deploy job app.hello.1 in lane app.hello at position 1',
      'waiting for it to finish (Ctrl-C stops waiting; the job stays queued)',
      '-----> Deploying hello (image nginx:1.27)',
      '-----> Releasing config (config-hello)',
      '       config-hello: revision 1 deployed',
      '-----> Releasing hello',
      '       hello: revision 1 pending-install',
      '-----> Rolling out hello (revision 1)',
      '       hello: waiting for 2 object(s), up to 300 s',
      '       web 2/2 updated, 2 available',
      '       worker 1/1 updated, 1 available',
      '       hello: revision 1: deployed nginx:1.27',
      '       hello: revision 1 deployed',
      '=====> app.hello.1 completed: deployed nginx:1.27 (hello revision 1)',
    ]);
    // Its format is another part's: what it reports, not how.
    expect(status.lines.join('\n'), context).toMatch(/nginx:1\.27/);
    expect(again.lines, context).toEqual([
      'enqueued deploy job app.hello.2 in lane app.hello at position 2',
      'waiting for it to finish (Ctrl-C stops waiting; the job stays queued)',
      '-----> Deploying hello (image nginx:1.27)',
      '-----> Releasing config (config-hello)',
      '       config-hello: unchanged (revision 1)',
      '-----> Releasing hello',
      '       hello: revision 1 is deployed with this content and nothing drifted',
      '       hello: unchanged (revision 1)',
      '=====> app.hello.2 completed: deployed nginx:1.27 (hello revision 1)',
    ]);
    expect(config.lines, context).toEqual([
      'enqueued config job app.hello.3 in lane app.hello at position 3',
      'waiting for it to finish (Ctrl-C stops waiting; the job stays queued)',
      '-----> Updating hello: config set GREETING',
      '-----> Releasing config (config-hello)',
      '       config-hello: revision 2 deployed',
      '-----> Releasing hello',
      '       hello: revision 2 pending-upgrade',
      '-----> Rolling out hello (revision 2)',
      '       hello: waiting for 2 object(s), up to 300 s',
      '       web 2/2 updated, 2 available',
      '       worker 1/1 updated, 1 available',
      '       hello: revision 2: config set GREETING',
      '       hello: revision 2 deployed',
      '=====> app.hello.3 completed: config set GREETING (hello revision 2)',
    ]);
    expect(domains.lines, context).toEqual([
      'enqueued domains job app.hello.4 in lane app.hello at position 4',
      'waiting for it to finish (Ctrl-C stops waiting; the job stays queued)',
      '-----> Updating hello: domains add hello.example.com',
      '-----> Releasing config (config-hello)',
      '       config-hello: unchanged (revision 2)',
      '-----> Releasing hello',
      '       hello: revision 3 pending-upgrade',
      '       hello: revision 3: domains add hello.example.com',
      '       hello: revision 3 deployed',
      '=====> app.hello.4 completed: domains add hello.example.com (hello revision 3)',
    ]);
    expect(scale.lines, context).toEqual([
      'enqueued scale job app.hello.5 in lane app.hello at position 5',
      'waiting for it to finish (Ctrl-C stops waiting; the job stays queued)',
      '-----> Updating hello: scaled worker=2',
      '-----> Releasing config (config-hello)',
      '       config-hello: unchanged (revision 2)',
      '-----> Releasing hello',
      '       hello: revision 4 pending-upgrade',
      '-----> Rolling out hello (revision 4)',
      '       hello: waiting for 1 object(s), up to 300 s',
      '       worker 2/2 updated, 2 available',
      '       hello: revision 4: scaled worker=2',
      '       hello: revision 4 deployed',
      '=====> app.hello.5 completed: scaled worker=2 (hello revision 4)',
    ]);
    for (const s of [first, again, config, domains, scale]) {
      expect(new Set(s.lines).size, `a line twice in ${s.command}\n${context}`).toBe(s.lines.length);
    }

    // The rollout line was redrawn in place: the bytes hold several states of web's line, each
    // after a carriage return and an erase, while the screen shows web's line once per rollout.
    const bytes = readFileSync(raw, 'utf8');
    const webStates = new Set(bytes.match(/web \d+\/2 updated, \d+ available/g) ?? []);
    expect(webStates.size, bytes).toBeGreaterThan(1);
    expect(bytes).toContain('\r\u001b[2K');
    expect(bytes).toContain('\u001b[1A\u001b[2K');
    expect(first.lines.filter((l) => l.includes(' updated, ')).length).toBe(2);
  }, 200_000);

  it('--json: one JSON event per line on stdout, in order, the outcome last; nothing else there', async () => {
    const result = await fleet.cli(['deploy', 'shop', '--image', 'nginx:1.27', '--wait', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^enqueued deploy job app\.shop\.\d+ /);
    const lines = result.stdout.split('\n');
    expect(lines.at(-1)).toBe('');
    const events = lines.slice(0, -1).map((line) => JSON.parse(line) as StreamEvent);
    const id = (events.at(-1) as { job: string }).job;
    expect(events.at(-1)).toMatchObject({
      kind: 'outcome',
      state: 'completed',
      summary: 'deployed nginx:1.27 (shop revision 1)',
      result: { revision: 1, image: 'nginx:1.27' },
    });
    expect(events.filter((e) => e.kind === 'outcome')).toHaveLength(1);
    const steps = events.flatMap((e) => (e.kind === 'step' ? [e.text] : []));
    expect(steps).toEqual([
      'Deploying shop (image nginx:1.27)',
      'Releasing config (config-shop)',
      'Releasing shop',
      'Rolling out shop (revision 1)',
    ]);
    const details = events.flatMap((e) => (e.kind === 'detail' ? [e.text] : []));
    expect(details).toContain('config-shop: revision 1 deployed');
    expect(details.at(-1)).toBe('shop: revision 1 deployed');
    const rollouts = events.flatMap((e) => (e.kind === 'rollout' ? e.deployments : []));
    expect(rollouts.length).toBeGreaterThan(0);
    expect(rollouts.at(-1)).toEqual({
      name: 'shop-web',
      process: 'web',
      desired: 1,
      updated: 1,
      ready: 1,
      available: 1,
    });
    // The stream comes before the end: every step and detail precedes the state `completed`.
    const completedAt = events.findIndex((e) => e.kind === 'state' && e.state === 'completed');
    expect(completedAt).toBe(events.length - 2);

    // jobs:show lists the same stream as text, never its encoding.
    const shown = await fleet.ok(['jobs:show', id]);
    expect(shown).toMatch(/^ {2}-----> Deploying shop \(image nginx:1\.27\)$/m);
    expect(shown).toMatch(/^ {9}web 1\/1 updated, 1 available$/m);
    expect(shown).not.toContain('\u001e');
    const json = JSON.parse(await fleet.ok(['jobs:show', id, '--json'])) as {
      logs: string[];
      events: StreamEvent[];
    };
    expect(json.logs).toContain('       config-shop: revision 1 deployed');
    expect(json.events.filter((e) => e.kind === 'step')).toHaveLength(4);
  }, 120_000);

  it('a failed job: --json ends with the failed outcome; plain lines hold no control and no line twice', async () => {
    const failed = await fleet.cli([
      'jobs:enqueue',
      'scale',
      '--payload',
      '{"app":"shop","processes":{"ghost":1}}',
      '--wait',
      '--json',
    ]);
    expect(failed.code, failed.stderr).toBe(1);
    const last = JSON.parse(failed.stdout.trimEnd().split('\n').at(-1)!) as StreamEvent;
    expect(last).toMatchObject({ kind: 'outcome', state: 'failed' });
    const plain = await fleet.cli(['ps:scale', 'shop', 'web=2', '--wait']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.includes('\r') || plain.stdout.includes('\u001b')).toBe(false);
    const lines = plain.stdout.trimEnd().split('\n');
    expect(new Set(lines).size, plain.stdout).toBe(lines.length);
    expect(lines.at(-1)).toMatch(/^=====> app\.shop\.\d+ completed: scaled web=2 \(shop revision 2\)$/);
    expect(lines.filter((l) => /^ {7}web 2\/2 updated, 2 available$/.test(l))).toHaveLength(1);
  }, 120_000);
});
