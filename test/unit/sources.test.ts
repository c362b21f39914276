import { describe, expect, it } from 'vitest';
import { parseAppJson } from '../../src/producers/sources/app-json.ts';
import { parseProcfile } from '../../src/producers/sources/procfile.ts';

describe('Procfile', () => {
  it('reads process types and commands, skipping comments and blank lines', () => {
    const text =
      '# processes\nweb: bundle exec puma -p $PORT\n\nworker:   sidekiq -C config/sidekiq.yml\nrelease: rake db:migrate\n';
    expect(parseProcfile(text)).toEqual({
      web: { command: 'bundle exec puma -p $PORT' },
      worker: { command: 'sidekiq -C config/sidekiq.yml' },
      release: { command: 'rake db:migrate' },
    });
  });

  it('names the line of each problem', () => {
    expect(() => parseProcfile('web: a\nnot a process line\nWeb_2: b\nweb: c\nempty:\n')).toThrow(
      /Procfile:2: expected "type: command"; Procfile:3: process type "Web_2" must be lowercase.*; Procfile:4: process type "web" is defined twice; Procfile:5: process type "empty" has no command/,
    );
  });
});

describe('app.json', () => {
  it('maps formation, cron and healthchecks', () => {
    const parts = parseAppJson(
      JSON.stringify({
        formation: { web: { quantity: 2 }, worker: { quantity: 0 } },
        cron: [{ command: 'rake report', schedule: '@daily', concurrency_policy: 'replace' }],
        healthchecks: { web: [{ type: 'readiness', path: '/health', port: 5000, timeout: 3, attempts: 4 }] },
      }),
    );
    expect(parts.replicas).toEqual({ web: 2, worker: 0 });
    expect(parts.cron).toEqual([
      { command: 'rake report', schedule: '@daily', concurrencyPolicy: 'Replace' },
    ]);
    expect(parts.healthchecks.web).toEqual({
      readiness: { type: 'http', path: '/health', port: 5000, timeoutSeconds: 3, failureThreshold: 4 },
    });
  });

  it('refuses text that is not a JSON object', () => {
    expect(() => parseAppJson('{nope')).toThrow(/app\.json: is not valid JSON/);
    expect(() => parseAppJson('[1]')).toThrow(/must be a JSON object/);
  });
});
