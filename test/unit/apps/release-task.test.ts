/**
 * The release task in the spec: what a deploy's Procfile and app.json declare, what a deploy
 * without them keeps, and that `release` is never a process (no Deployment), even in a spec saved
 * when it was one.
 */
import { describe, expect, it } from 'vitest';
import { appChart } from '../../../charts/index.ts';
import { appChartValues } from '../../../src/apps/chart-values.ts';
import { applyDeploy } from '../../../src/apps/mutations.ts';
import { type AppSpec, appSpec, emptySpec } from '../../../src/apps/spec.ts';
import { InvalidInputError } from '../../../src/core/errors.ts';
import { type DeployPayload, deployPayload } from '../../../src/jobs/schemas/deploy.ts';
import { parseAppJson } from '../../../src/producers/sources/app-json.ts';

const deploy = (p: Partial<DeployPayload>): DeployPayload => ({ app: 'shop', image: 'nginx:1.27', ...p });
const web = { web: { command: 'bin/web' } };

function deployments(spec: AppSpec): string[] {
  return appChart
    .render(appChartValues({ ...spec, image: spec.image ?? 'nginx:1.27' }))
    .filter((o) => o.kind === 'Deployment')
    .map((o) => o.metadata.name);
}

describe('the release task in the spec', () => {
  it("takes the Procfile's release command, never as a process", () => {
    const spec = applyDeploy(
      emptySpec('shop'),
      deploy({ processes: web, release: { procfile: 'bin/migrate', predeploy: null } }),
    );
    expect(spec.release).toEqual({ command: 'bin/migrate', source: 'procfile' });
    expect(Object.keys(spec.processes)).toEqual(['web']);
    expect(appSpec.parse(spec)).toEqual(spec);
    expect(deployments(spec)).toEqual(['shop-web']);
  });

  it('lifts a release line from the processes of an older payload, and from a spec saved when it was a Deployment', () => {
    const fromPayload = applyDeploy(
      emptySpec('shop'),
      deploy({ processes: { ...web, release: { command: 'bin/migrate' } } }),
    );
    expect(fromPayload.release).toEqual({ command: 'bin/migrate', source: 'procfile' });
    expect(Object.keys(fromPayload.processes)).toEqual(['web']);

    // Saved before the release phase: a 0-replica process type. The chart never renders it, and
    // the next deploy (without a Procfile) makes it the release task.
    const legacy: AppSpec = {
      ...emptySpec('shop'),
      image: 'nginx:1.26',
      processes: {
        web: { command: 'bin/web', replicas: 1 },
        release: { command: 'bin/migrate', replicas: 0 },
      },
    };
    expect(deployments(legacy)).toEqual(['shop-web']);
    const next = applyDeploy(legacy, deploy({}));
    expect(next.release).toEqual({ command: 'bin/migrate', source: 'procfile' });
    expect(Object.keys(next.processes)).toEqual(['web']);
  });

  it('keeps the task when the deploy has neither file; a file without one drops only its own', () => {
    const fromProcfile = applyDeploy(
      emptySpec('shop'),
      deploy({ processes: web, release: { procfile: 'bin/migrate' } }),
    );
    expect(applyDeploy(fromProcfile, deploy({})).release).toEqual(fromProcfile.release);
    // An app.json without predeploy leaves the Procfile's task alone…
    expect(applyDeploy(fromProcfile, deploy({ release: { predeploy: null } })).release).toEqual(
      fromProcfile.release,
    );
    // …and a Procfile without a release line drops it.
    expect(
      applyDeploy(fromProcfile, deploy({ processes: web, release: { procfile: null } })).release,
    ).toBeUndefined();

    const fromAppJson = applyDeploy(emptySpec('shop'), deploy({ release: { predeploy: 'bin/prepare' } }));
    expect(fromAppJson.release).toEqual({ command: 'bin/prepare', source: 'app.json' });
    expect(applyDeploy(fromAppJson, deploy({ processes: web, release: { procfile: null } })).release).toEqual(
      fromAppJson.release,
    );
    expect(applyDeploy(fromAppJson, deploy({ release: { predeploy: null } })).release).toBeUndefined();
  });

  it('refuses two release tasks, and an empty command', () => {
    expect(() =>
      applyDeploy(
        emptySpec('shop'),
        deploy({ release: { procfile: 'bin/migrate', predeploy: 'bin/prepare' } }),
      ),
    ).toThrow(InvalidInputError);
    const both = deployPayload.safeParse(deploy({ release: { procfile: 'a', predeploy: 'b' } }));
    expect(both.success).toBe(false);
    const empty = deployPayload.safeParse(deploy({ release: { procfile: '   ' } }));
    expect(empty.success).toBe(false);
  });

  it("reads app.json's scripts.dokku.predeploy, refusing an empty one by its path", () => {
    expect(parseAppJson(JSON.stringify({ scripts: { dokku: { predeploy: 'bin/prepare' } } })).predeploy).toBe(
      'bin/prepare',
    );
    expect(parseAppJson(JSON.stringify({ scripts: { postdeploy: 'x' } })).predeploy).toBeUndefined();
    const err = (() => {
      try {
        parseAppJson(JSON.stringify({ scripts: { dokku: { predeploy: '' } } }), 'app.json');
      } catch (e) {
        return e as InvalidInputError;
      }
    })();
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err?.message).toMatch(/scripts\.dokku\.predeploy: must not be empty/);
  });

  it("reads app.json's scripts.dokku.postdeploy, refusing an empty or non-string one by its path", () => {
    const parts = parseAppJson(JSON.stringify({ scripts: { dokku: { postdeploy: 'bin/notify' } } }));
    expect(parts.postdeploy).toBe('bin/notify');
    expect(parts.unsupported).toEqual([]);
    expect(parseAppJson(JSON.stringify({ scripts: { postdeploy: 'x' } })).postdeploy).toBeUndefined();
    for (const bad of ['', '   ', 3]) {
      const err = (() => {
        try {
          parseAppJson(JSON.stringify({ scripts: { dokku: { postdeploy: bad } } }), 'app.json');
        } catch (e) {
          return e as InvalidInputError;
        }
      })();
      expect(err).toBeInstanceOf(InvalidInputError);
      expect(err?.message).toMatch(/scripts\.dokku\.postdeploy: must/);
    }
  });

  it('a deploy with an app.json sets or drops the postdeploy task; one without keeps it', () => {
    const withTask = applyDeploy(emptySpec('shop'), deploy({ postdeploy: 'bin/notify' }));
    expect(withTask.postdeploy).toEqual({ command: 'bin/notify' });
    expect(applyDeploy(withTask, deploy({})).postdeploy).toEqual({ command: 'bin/notify' });
    expect(applyDeploy(withTask, deploy({ postdeploy: null })).postdeploy).toBeUndefined();
    expect(deployPayload.safeParse(deploy({ postdeploy: '  ' })).success).toBe(false);
  });
});
