/**
 * What a push updated, as git hands it to a receive hook on stdin: one `oldrev newrev refname`
 * line per ref (githooks(5), pre-receive), and which of those the hook deploys.
 */

/** The all-zero object name git uses for "no commit": a created ref's old side, a deleted one's new. */
const ZERO = /^0+$/;
const OBJECT_NAME = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export interface PushedRef {
  oldrev: string;
  newrev: string;
  refname: string;
}

export type RefDecision =
  | { deploy: true; ref: PushedRef; sha: string }
  | { deploy: false; ref: PushedRef; reason: string };

/** Parses the hook's stdin; a line that is not three fields with object names is an error git never sends. */
export function parsePushedRefs(stdin: string): PushedRef[] {
  const refs: PushedRef[] = [];
  for (const line of stdin.split('\n')) {
    if (line.trim() === '') continue;
    const [oldrev, newrev, refname, ...rest] = line.trim().split(/\s+/);
    if (
      !oldrev ||
      !newrev ||
      !refname ||
      rest.length > 0 ||
      !OBJECT_NAME.test(oldrev) ||
      !OBJECT_NAME.test(newrev)
    ) {
      throw new Error(`unexpected line from git on the hook's stdin: ${JSON.stringify(line)}`);
    }
    refs.push({ oldrev, newrev, refname });
  }
  return refs;
}

/** Whether a pushed ref is deployed: only an update or creation of the deploy branch is. */
export function decide(ref: PushedRef, branch: string): RefDecision {
  const deployRef = `refs/heads/${branch}`;
  if (ref.refname.startsWith('refs/tags/'))
    return { deploy: false, ref, reason: `tag ${ref.refname.slice(10)} pushed: tags are not deployed` };
  if (ZERO.test(ref.newrev)) {
    const what = ref.refname.startsWith('refs/heads/') ? `branch ${ref.refname.slice(11)}` : ref.refname;
    return {
      deploy: false,
      ref,
      reason:
        ref.refname === deployRef
          ? `${what} deleted: nothing is deployed, and the app keeps running what it runs`
          : `${what} deleted: nothing to deploy`,
    };
  }
  if (ref.refname !== deployRef) {
    return {
      deploy: false,
      ref,
      reason: `${ref.refname} is not the deploy branch (${branch}): not deployed`,
    };
  }
  return { deploy: true, ref, sha: ref.newrev };
}
