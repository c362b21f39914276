/** Exit codes of every `longshore` command, documented in README.md ("CLI reference"). */
export const EXIT = {
  ok: 0,
  /** The job failed, or Redis / another dependency could not be reached. */
  failed: 1,
  /** Invalid input or configuration: nothing was enqueued or written. */
  invalid: 2,
} as const;
