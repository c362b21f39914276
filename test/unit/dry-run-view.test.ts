/** How the CLI prints a dry run's plan (src/producers/cli/dry-run.ts formatPlan). */
import { describe, expect, it } from 'vitest';
import { formatPlan } from '../../src/producers/cli/dry-run.ts';

const ref = (kind: string, name: string) => ({ apiVersion: 'v1', kind, name, namespace: 'shop' });

describe('formatPlan', () => {
  it('lists creates, updates with their diff and masked values, deletes, and counts the unchanged', () => {
    const lines = formatPlan({
      summary: 'dry run of config set A: 2 to update, 1 to delete, 2 unchanged; nothing was written',
      namespace: { name: 'shop', action: 'create' },
      releases: [
        {
          release: 'config-shop',
          deployedRevision: 3,
          newRevision: true,
          objects: [
            { ...ref('Secret', 'config-shop'), action: 'update', values: { A: 'changed', B: 'added' } },
          ],
        },
        {
          release: 'shop',
          deployedRevision: 4,
          newRevision: true,
          objects: [
            { ...ref('ServiceAccount', 'shop'), action: 'unchanged' },
            {
              ...ref('Deployment', 'shop-web'),
              action: 'update',
              diff: '--- live\n+++ rendered\n@@ -1,1 +1,1 @@\n-replicas: 1\n+replicas: 2\n',
            },
            { ...ref('Service', 'shop-web'), action: 'unchanged' },
            { ...ref('ConfigMap', 'new'), action: 'create' },
            { ...ref('Ingress', 'shop-b'), action: 'delete' },
          ],
        },
        { release: 'pull-secret-shop', deployedRevision: 1, newRevision: false, objects: [] },
      ],
    });
    expect(lines).toEqual([
      '+ create Namespace/shop',
      'config-shop (new revision after 3)',
      '  ~ update Secret/config-shop (namespace shop)',
      '      A: (changed)',
      '      B: (added)',
      'shop (new revision after 4)',
      '  ~ update Deployment/shop-web (namespace shop)',
      '      --- live',
      '      +++ rendered',
      '      @@ -1,1 +1,1 @@',
      '      -replicas: 1',
      '      +replicas: 2',
      '  + create ConfigMap/new (namespace shop)',
      '  - delete Ingress/shop-b (namespace shop)',
      '  = 2 unchanged',
      'pull-secret-shop (no new revision; revision 1 stays)',
      '  (no live objects)',
      'dry run of config set A: 2 to update, 1 to delete, 2 unchanged; nothing was written',
    ]);
  });

  it('says when a release is installed for the first time, or uninstalled', () => {
    expect(
      formatPlan({
        releases: [
          { release: 'web', newRevision: true, objects: [{ ...ref('Service', 'web'), action: 'create' }] },
          {
            release: 'config-web',
            deployedRevision: 2,
            newRevision: false,
            uninstall: true,
            objects: [{ ...ref('Secret', 'config-web'), action: 'delete' }],
          },
        ],
      }),
    ).toEqual([
      'web (install: revision 1)',
      '  + create Service/web (namespace shop)',
      'config-web (uninstall: its history goes too)',
      '  - delete Secret/config-web (namespace shop)',
    ]);
  });
});
