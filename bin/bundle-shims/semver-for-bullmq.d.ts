// Types of semver-for-bullmq.js, for its test (the CLI bundle itself is plain JavaScript).
export function coerce(version: unknown): string | null;
export function valid(version: unknown): string | null;
export function lt(a: unknown, b: unknown): boolean;
