import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/core/errors.ts';
import { parseAppJson } from '../../src/producers/sources/app-json.ts';
import { parseProcfile } from '../../src/producers/sources/procfile.ts';

/** The issues an input is refused with, as `path: message` lines. */
function refusal(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidInputError)
      return err.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
    throw err;
  }
  throw new Error('expected the input to be refused');
}

const appJson = (doc: unknown) => () => parseAppJson(JSON.stringify(doc));

describe('Procfile', () => {
  it('reads process types and commands, skipping comments and blank lines', () => {
    const text =
      '# processes\nweb: bundle exec puma -p $PORT\r\n\nworker:   sidekiq -C config/sidekiq.yml\nrelease: rake db:migrate\n';
    expect(parseProcfile(text)).toEqual({
      web: { command: 'bundle exec puma -p $PORT' },
      worker: { command: 'sidekiq -C config/sidekiq.yml' },
      release: { command: 'rake db:migrate' },
    });
  });

  it('names the line of each problem', () => {
    expect(refusal(() => parseProcfile('web: a\nnot a process line\nWeb_2: b\nweb: c\nempty:\n'))).toEqual([
      'line 2: expected "type: command" (e.g. "web: bin/server"), got "not a process line"',
      expect.stringMatching(/^line 3: process type "Web_2" must be lowercase letters, digits and "-"/),
      'line 4: process type "web" is defined twice (first on line 1)',
      'line 5: process type "empty" has no command',
    ]);
  });

  it('refuses process types that cannot be part of a Kubernetes name', () => {
    expect(refusal(() => parseProcfile('1web: a\n')).join()).toMatch(/line 1: process type "1web" must be/);
    expect(refusal(() => parseProcfile('web-: a\n')).join()).toMatch(/line 1: process type "web-" must be/);
    expect(refusal(() => parseProcfile(`${'w'.repeat(21)}: a\n`)).join()).toMatch(/at most 20 characters/);
  });

  it('refuses a Procfile with no process type, and a command longer than a payload takes', () => {
    expect(refusal(() => parseProcfile('# nothing here\n\n'))).toEqual([
      expect.stringMatching(/^declares no process type/),
    ]);
    expect(refusal(() => parseProcfile(`web: ${'x'.repeat(4097)}\n`))).toEqual([
      'line 1: the command of "web" is 4097 characters; at most 4096',
    ]);
  });

  it('names the file in the error', () => {
    expect(() => parseProcfile('nope\n', '/src/Procfile')).toThrow(
      /^invalid \/src\/Procfile: line 1: expected/,
    );
  });
});

describe('app.json', () => {
  it('maps formation, cron and healthchecks', () => {
    const parts = parseAppJson(
      JSON.stringify({
        name: 'shop',
        env: { SECRET_KEY: { generator: 'secret' } },
        formation: { web: { quantity: 2, max_parallel: 1 }, worker: { quantity: 0 }, clock: {} },
        cron: [
          { command: 'rake report', schedule: '@daily', concurrency_policy: 'replace' },
          { command: 'rake sweep', schedule: '0 1 * * *', maintenance: true },
        ],
        healthchecks: {
          web: [
            { type: 'readiness', name: 'ready', path: '/health', port: 5000, timeout: 3, attempts: 4 },
            { type: 'liveness', command: ['/bin/check', '--live'], wait: 10, initialDelay: 0 },
            { listening: true },
          ],
          worker: [],
        },
      }),
    );
    expect(parts.formation).toEqual({
      web: { replicas: 2, maxParallel: 1 },
      worker: { replicas: 0 },
      clock: {},
    });
    expect(parts.cron).toEqual([
      { command: 'rake report', schedule: '@daily', concurrencyPolicy: 'Replace', suspend: false },
      { command: 'rake sweep', schedule: '0 1 * * *', concurrencyPolicy: 'Forbid', suspend: true },
    ]);
    expect(parts.healthchecks).toEqual({
      web: {
        readiness: { type: 'http', path: '/health', port: 5000, timeoutSeconds: 3, failureThreshold: 4 },
        liveness: {
          type: 'exec',
          command: ['/bin/check', '--live'],
          periodSeconds: 10,
          initialDelaySeconds: 0,
        },
        startup: { type: 'tcp' },
      },
      worker: {},
    });
  });

  it('lists the keys it does not act on, as paths, and not the descriptive ones', () => {
    const parts = parseAppJson(
      JSON.stringify({
        name: 'shop',
        description: 'a shop',
        env: { A: 'x' },
        buildpacks: [{ url: 'heroku/ruby' }],
        scripts: { dokku: { postdeploy: 'bin/notify' }, postdeploy: 'x' },
        formation: { web: { quantity: 1, service: { external: false } } },
      }),
    );
    expect(parts.unsupported).toEqual([
      'buildpacks',
      'env',
      'formation.web.service',
      // scripts.dokku.postdeploy is the postdeploy task: read, so not reported.
      'scripts.postdeploy',
    ]);
  });

  it('refuses a max_parallel that is not a whole number of at least 1, naming its path', () => {
    for (const bad of [0, -1, 1.5, '2'])
      expect(
        refusal(() => parseAppJson(JSON.stringify({ formation: { web: { max_parallel: bad } } }))),
      ).toEqual([
        expect.stringMatching(/^formation\.web\.max_parallel: must be a whole number from 1 to 1000/),
      ]);
  });

  it("reads Dokku's autoscaling block as the payload's, metadata as strings", () => {
    const parts = parseAppJson(
      JSON.stringify({
        formation: {
          worker: {
            quantity: 1,
            autoscaling: {
              min_quantity: 1,
              max_quantity: 10,
              polling_interval_seconds: 30,
              cooldown_seconds: 300,
              triggers: [{ type: 'redis', metadata: { listName: 'jobs', listLength: 5 } }],
            },
          },
          web: { autoscaling: { max_quantity: 3, triggers: [{ type: 'cpu', metadata: { value: '60' } }] } },
        },
      }),
    );
    expect(parts.formation).toEqual({
      worker: {
        replicas: 1,
        autoscaling: {
          minReplicas: 1,
          maxReplicas: 10,
          pollingIntervalSeconds: 30,
          cooldownSeconds: 300,
          triggers: [{ type: 'redis', metadata: { listName: 'jobs', listLength: '5' } }],
        },
      },
      // KEDA's default minReplicaCount is 0.
      web: {
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 3,
          triggers: [{ type: 'cpu', metadata: { value: '60' } }],
        },
      },
    });
    expect(parts.unsupported).toEqual([]);
  });

  it('refuses a bad autoscaling block, naming its path', () => {
    const scaling = (a: Record<string, unknown>) =>
      refusal(
        appJson({
          formation: { worker: { autoscaling: { max_quantity: 5, triggers: [{ type: 'cpu' }], ...a } } },
        }),
      );
    expect(scaling({ min_quantity: 6 })).toEqual([
      'formation.worker.autoscaling.min_quantity: is 6, above max_quantity 5',
    ]);
    expect(scaling({ max_quantity: 0 })).toEqual([
      expect.stringMatching(
        /^formation\.worker\.autoscaling\.max_quantity: must be a whole number from 1 to 1000/,
      ),
    ]);
    expect(scaling({ max_quantity: undefined })).toEqual([
      expect.stringMatching(/^formation\.worker\.autoscaling\.max_quantity: is required/),
    ]);
    expect(scaling({ polling_interval_seconds: 0 })).toEqual([
      expect.stringMatching(
        /^formation\.worker\.autoscaling\.polling_interval_seconds: must be a whole number from 1 to 86400/,
      ),
    ]);
    expect(scaling({ cooldown_seconds: 'soon' })).toEqual([
      expect.stringMatching(/^formation\.worker\.autoscaling\.cooldown_seconds: must be a whole number/),
    ]);
    expect(scaling({ triggers: [] })).toEqual([
      'formation.worker.autoscaling.triggers: must name at least one trigger',
    ]);
    expect(scaling({ triggers: [{ type: 'redis-queue' }] })).toEqual([
      expect.stringMatching(
        /^formation\.worker\.autoscaling\.triggers\[0\]\.type: is not a KEDA scaler: the string "redis-queue"/,
      ),
    ]);
    expect(scaling({ triggers: [{ type: 'cpu', metdata: {} }] })).toEqual([
      expect.stringMatching(/^formation\.worker\.autoscaling\.triggers\[0\]: unknown key "metdata"/),
    ]);
  });

  it('leaves out what the file does not have, so the app keeps it', () => {
    expect(parseAppJson('{"name":"x"}')).toEqual({ formation: {}, unsupported: [] });
    expect(parseAppJson('{"cron":[],"healthchecks":{}}')).toEqual({
      formation: {},
      cron: [],
      healthchecks: {},
      unsupported: [],
    });
    expect(parseAppJson('{"formation":null,"cron":null}')).toEqual({ formation: {}, unsupported: [] });
  });

  it('refuses text that is not a JSON object, with the parse error and where it is', () => {
    expect(refusal(() => parseAppJson('{\n  "formation": {nope}\n}'))).toEqual([
      expect.stringMatching(/^is not valid JSON: .*position 18.*line 2 column 17/),
    ]);
    expect(() => parseAppJson('{nope', '/src/app.json')).toThrow(
      /^invalid \/src\/app\.json: is not valid JSON/,
    );
    expect(refusal(() => parseAppJson(''))).toEqual([expect.stringMatching(/^is not valid JSON/)]);
    expect(refusal(() => parseAppJson('[1]'))).toEqual(['must be a JSON object; got a list']);
    expect(refusal(() => parseAppJson('null'))).toEqual(['must be a JSON object; got null']);
    expect(refusal(() => parseAppJson('"x"'))).toEqual(['must be a JSON object; got the string "x"']);
  });

  it('refuses each malformed cron shape with its path', () => {
    expect(refusal(appJson({ cron: 'x' }))).toEqual([
      'cron: must be a list of cron tasks, e.g. [{"command": "bin/report", "schedule": "@daily"}]; got the string "x"',
    ]);
    expect(refusal(appJson({ cron: [null] }))).toEqual([
      'cron[0]: must be a cron task (an object); got null',
    ]);
    expect(refusal(appJson({ cron: [{ schedule: '@daily' }] }))).toEqual([
      'cron[0].command: is required (a command (a non-empty string))',
    ]);
    expect(refusal(appJson({ cron: [{ command: 'x', schedule: 5 }] }))).toEqual([
      'cron[0].schedule: must be a schedule such as "0 1 * * *" or "@daily"; got the number 5',
    ]);
    expect(refusal(appJson({ cron: [{ command: 'x', schedule: '* * *' }] }))).toEqual([
      expect.stringMatching(/^cron\[0\]\.schedule: must have 5 fields .*; got 3$/),
    ]);
    expect(
      refusal(appJson({ cron: [{ command: 'x', schedule: '@daily', concurrency_policy: 'never' }] })),
    ).toEqual(['cron[0].concurrency_policy: must be one of allow, forbid, replace; got the string "never"']);
    expect(refusal(appJson({ cron: [{ command: 'x', schedule: '@daily', maintenance: 'yes' }] }))).toEqual([
      'cron[0].maintenance: must be true or false; got the string "yes"',
    ]);
    expect(refusal(appJson({ cron: [{ command: 'x', schedule: '@daily', comand: 'y' }] }))).toEqual([
      'cron[0]: unknown key "comand" (a cron task takes command, schedule, concurrency_policy, maintenance, suspend, name, description)',
    ]);
  });

  it('refuses each malformed healthcheck shape with its path', () => {
    expect(refusal(appJson({ healthchecks: { web: 5 } }))).toEqual([
      'healthchecks.web: must be a list of healthchecks, e.g. [{"type": "startup", "path": "/"}]; got the number 5',
    ]);
    expect(refusal(appJson({ healthchecks: { web: 'abc' } }))).toEqual([
      'healthchecks.web: must be a list of healthchecks, e.g. [{"type": "startup", "path": "/"}]; got the string "abc"',
    ]);
    expect(refusal(appJson({ healthchecks: [] }))).toEqual([
      'healthchecks: must be an object of process types, e.g. {"web": [{"type": "startup", "path": "/"}]}; got a list',
    ]);
    expect(refusal(appJson({ healthchecks: { web: ['abc'] } }))).toEqual([
      'healthchecks.web[0]: must be a healthcheck (an object); got the string "abc"',
    ]);
    expect(
      refusal(appJson({ healthchecks: { web: [{ type: 'ready', path: 'health', port: '5000' }] } })),
    ).toEqual([
      'healthchecks.web[0].type: must be one of startup, readiness, liveness; got the string "ready"',
      'healthchecks.web[0].path: must start with "/" (an HTTP path such as "/health")',
      'healthchecks.web[0].port: must be a whole number from 1 to 65535; got the string "5000"',
    ]);
    expect(refusal(appJson({ healthchecks: { web: [{ port: 0, timeout: 1.5, attempts: 0 }] } }))).toEqual([
      'healthchecks.web[0].port: must be a whole number from 1 to 65535; got the number 0',
      'healthchecks.web[0].timeout: must be a whole number from 1 to 3600 (seconds); got the number 1.5',
      'healthchecks.web[0].attempts: must be a whole number from 1 to 100; got the number 0',
    ]);
    expect(refusal(appJson({ healthchecks: { web: [{ command: 'check.sh' }] } }))).toEqual([
      'healthchecks.web[0].command: must be a command as a list of strings, e.g. ["/app/check.sh", "--ready"]; got the string "check.sh"',
    ]);
    expect(refusal(appJson({ healthchecks: { web: [{ command: ['x'], path: '/' }] } }))).toEqual([
      'healthchecks.web[0]: has both "command" (an exec check) and "path" (an HTTP check); give one',
    ]);
    expect(
      refusal(appJson({ healthchecks: { web: [{ path: '/' }, { type: 'startup', path: '/b' }] } })),
    ).toEqual([
      'healthchecks.web[1]: is a second startup check (the first is [0]); a Kubernetes container has one startup probe',
    ]);
    expect(refusal(appJson({ healthchecks: { web: [{ type: 'startup', uptime: 10 }] } }))).toEqual([
      'healthchecks.web[0].uptime: is not supported by longshore: Kubernetes has no uptime probe; use "path", "command" or "listening": true',
    ]);
    expect(refusal(appJson({ healthchecks: { web: [{ path: '/', scheme: 'https' }] } }))).toEqual([
      'healthchecks.web[0].scheme: must be "http" (https probes are not supported by longshore); got the string "https"',
    ]);
    expect(refusal(appJson({ healthchecks: { Web_1: [] } }))).toEqual([
      expect.stringMatching(/^healthchecks\.Web_1: "Web_1" is not a process type name: must be lowercase/),
    ]);
  });

  it('refuses each malformed formation shape with its path', () => {
    expect(refusal(appJson({ formation: [] }))).toEqual([
      'formation: must be an object of process types, e.g. {"web": {"quantity": 2}}; got a list',
    ]);
    expect(refusal(appJson({ formation: { web: 2 } }))).toEqual([
      'formation.web: must be a formation entry (an object); got the number 2',
    ]);
    expect(refusal(appJson({ formation: { web: { quantity: '2' } } }))).toEqual([
      'formation.web.quantity: must be a whole number from 0 to 1000; got the string "2"',
    ]);
    expect(refusal(appJson({ formation: { web: { quantity: -1 } } }))).toEqual([
      'formation.web.quantity: must be a whole number from 0 to 1000; got the number -1',
    ]);
    expect(refusal(appJson({ formation: { web: { quantity: 1001 } } }))).toEqual([
      'formation.web.quantity: must be a whole number from 0 to 1000; got the number 1001',
    ]);
    expect(refusal(appJson({ formation: { web: { quantitiy: 2 } } }))).toEqual([
      'formation.web: unknown key "quantitiy" (a formation entry takes quantity, max_parallel, autoscaling, service)',
    ]);
    expect(refusal(appJson({ formation: { 'my worker': { quantity: 1 } } }))).toEqual([
      expect.stringMatching(/^formation\["my worker"\]: "my worker" is not a process type name/),
    ]);
  });

  it('names every problem of a file at once', () => {
    expect(refusal(appJson({ cron: [null], healthchecks: { web: 5 }, formation: { web: 2 } }))).toHaveLength(
      3,
    );
  });
});
