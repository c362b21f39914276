/**
 * The releases a destroy removes: the app release, `config-{app}`, `pull-secret-{app}`,
 * `autoscaling-auth-{app}` (KEDA trigger authentication Secrets), the legacy
 * `tls-{app}` (older versions installed one; Dokku's rename and destroy leaked theirs), and any
 * other release history records for the app. Storage releases are not the app's (entries outlive
 * it; `--with-storage` destroys them through their own jobs), so they are never listed here.
 * Order: the app release first, so its workloads (and their pods) go before what they read.
 */
import { releaseNames } from '../../apps/releases.ts';
import type { ReleaseHistoryReader } from '../../storage/index.ts';

const STORAGE_PREFIX = releaseNames.storage('');

export function appReleases(history: ReleaseHistoryReader, app: string): string[] {
  const own = [
    releaseNames.app(app),
    releaseNames.config(app),
    releaseNames.pullSecret(app),
    releaseNames.autoscalingAuth(app),
    releaseNames.tls(app),
  ];
  const recorded = history.releases(app).filter((r) => !own.includes(r) && !r.startsWith(STORAGE_PREFIX));
  return [...own, ...recorded.sort()].filter((release) => history.last(release) !== undefined);
}
