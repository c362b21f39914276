import { describe, expect, it } from 'vitest';
import { statusLines } from '../../../src/producers/cli/commands/apps.ts';
import { createStyle } from '../../../src/producers/cli/style.ts';

const NOW = Date.parse('2026-12-01T11:00:42Z');
const at = (iso: string) => Date.parse(iso);

describe('apps:status for people', () => {
  const record = {
    lane: 'app.shop',
    kind: 'app' as const,
    name: 'shop',
    pending: 1,
    activeJobId: 'app.shop.5',
    lastJobId: 'app.shop.4',
    lastType: 'deploy',
    lastOutcome: 'failed' as const,
    lastError: 'rollout timed out',
    lastFinishedAt: at('2026-12-01T10:58:42.563Z'),
    lastSuccessJobId: 'app.shop.3',
    lastSuccessType: 'config',
    lastSuccessSeq: 3,
    lastSuccessAt: at('2026-12-01T09:00:42Z'),
    revision: 3,
    image: 'nginx:1.27',
    deployedRevision: { revision: 3, image: 'nginx:1.27' },
    failedRevision: { revision: 4, reason: 'rollout timed out' },
    updatedAt: at('2026-12-01T10:58:42Z'),
  };

  it('aligns the fields, times relative and ISO, the release last', () => {
    expect(statusLines(record, createStyle({ isTTY: false }, {}), NOW)).toEqual([
      'app           shop',
      'lane          app.shop',
      'pending       1 job',
      'running       app.shop.5',
      'last job      deploy app.shop.4',
      '  outcome     failed',
      '  error       rollout timed out',
      '  finished    2 minutes ago (2026-12-01T10:58:42Z)',
      'last success  config app.shop.3 (position 3)',
      '  at          2 hours ago (2026-12-01T09:00:42Z)',
      'revision      3',
      'image         nginx:1.27',
      'release       revision 3 deployed (nginx:1.27)',
      '              revision 4 failed: rollout timed out',
      'updated       2 minutes ago (2026-12-01T10:58:42Z)',
    ]);
  });

  it('colours the outcome and the release states on a terminal', () => {
    const lines = statusLines(record, createStyle({ isTTY: true }, {}), NOW).join('\n');
    expect(lines).toContain('\u001b[31mfailed\u001b[39m');
    expect(lines).toContain('revision 3 \u001b[32mdeployed\u001b[39m');
    expect(lines).toContain('\u001b[1mrelease\u001b[22m');
  });
});
