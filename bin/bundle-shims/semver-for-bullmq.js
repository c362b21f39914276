// What bullmq asks of semver, and nothing else: `isRedisVersionLowerThan` (bullmq/dist/esm/utils)
// calls `valid(coerce(serverVersion))` and then `lt(version, minimum)` with a literal minimum such
// as '6.2.0', on every connection. Loading semver itself builds about 600 regular expressions
// (semver/internal/re.js), which cost an enqueuing CLI call ~40 ms before it sends anything. The
// CLI bundle (bin/build-cli.js) gives bullmq this module instead; test/unit/cli/bundle-shims.test.ts
// checks it against the real semver on Redis and Valkey version strings.

/** Largest component semver accepts in a coerced version (semver/internal/constants.js). */
const MAX_COMPONENT_LENGTH = 16;
const COERCE = new RegExp(
  `(^|[^\\d])(\\d{1,${MAX_COMPONENT_LENGTH}})(?:\\.(\\d{1,${MAX_COMPONENT_LENGTH}}))?(?:\\.(\\d{1,${MAX_COMPONENT_LENGTH}}))?(?:$|[^\\d])`,
);
const PLAIN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** semver.coerce without options: the first `x[.y[.z]]` in the string, missing parts 0, as a string. */
export function coerce(version) {
  if (typeof version === 'number') version = String(version);
  if (typeof version !== 'string') return null;
  const match = version.match(COERCE);
  if (!match) return null;
  // The digits as found: a leading zero makes the result invalid, as in semver.
  return valid(`${match[2]}.${match[3] ?? '0'}.${match[4] ?? '0'}`);
}

/** semver.valid for the plain `x.y.z` versions coerce returns; anything else is not one here. */
export function valid(version) {
  if (typeof version !== 'string') return null;
  const match = version.match(PLAIN);
  if (!match || match.slice(1).some((n) => !Number.isSafeInteger(Number(n)))) return null;
  return version;
}

function parts(version) {
  if (typeof version !== 'string') {
    throw new TypeError(`Invalid version. Must be a string. Got type "${typeof version}".`);
  }
  if (!valid(version)) throw new TypeError(`Invalid Version: ${version}`);
  return version.split('.').map(Number);
}

/** semver.lt on plain versions: the first differing component decides. */
export function lt(a, b) {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i];
  return false;
}
