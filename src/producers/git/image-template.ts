/** The image of a pushed commit, for the git hook and the push webhooks: `{app}`, `{sha}` and `{short_sha}` (7 characters) replaced. */
export function imageFor(template: string, app: string, sha: string): string {
  return template
    .replaceAll('{app}', app)
    .replaceAll('{sha}', sha)
    .replaceAll('{short_sha}', sha.slice(0, 7));
}
