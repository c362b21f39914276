/** apps:report's release task, postdeploy and trigger authentication rows (never a value). */
import { describe, expect, it } from 'vitest';
import { type AppSpec, emptySpec } from '../../../src/apps/spec.ts';
import { autoscalingAuthLines } from '../../../src/producers/cli/commands/autoscaling-auth.ts';
import { reportLines } from '../../../src/producers/cli/commands/report.ts';
import { createStyle } from '../../../src/producers/cli/style.ts';

const style = createStyle({ isTTY: false }, {});
const lines = (spec: AppSpec) => reportLines('shop', { known: true, spec, jobs: [] }, style).join('\n');

describe('apps:report', () => {
  it('says whether the app has a release task, and where it comes from', () => {
    expect(lines(emptySpec('shop'))).toMatch(/release task\s+- \(no Procfile release/);
    const spec: AppSpec = {
      ...emptySpec('shop'),
      release: { command: 'bin/migrate', source: 'procfile' },
      postdeploy: { command: 'bin/notify' },
    };
    expect(lines(spec)).toMatch(/release task\s+bin\/migrate \(Procfile release\)/);
    expect(lines(spec)).toMatch(/postdeploy\s+bin\/notify/);
    expect(lines({ ...spec, release: { command: 'bin/migrate', source: 'app.json' } })).toMatch(
      /release task\s+bin\/migrate \(app.json scripts.dokku.predeploy\)/,
    );
  });

  it('lists trigger authentication by parameter name', () => {
    const spec: AppSpec = { ...emptySpec('shop'), autoscalingAuth: { redis: ['password', 'username'] } };
    expect(lines(spec)).toMatch(/trigger auth\s+redis \(password, username\)/);
    expect(autoscalingAuthLines(spec)).toEqual(['redis  password, username']);
    expect(autoscalingAuthLines(emptySpec('shop'))).toEqual(['no trigger authentication']);
  });
});
