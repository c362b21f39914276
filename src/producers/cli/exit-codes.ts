/**
 * Exit codes of every `longshore` command, documented in README.md ("CLI reference"). `run` exits
 * with its container's exit code instead when the run ended.
 */
export const EXIT = {
  ok: 0,
  /** The job failed, or Redis / another dependency could not be reached. */
  failed: 1,
  /** Invalid input or configuration: nothing was enqueued or written. */
  invalid: 2,
  /** Ctrl-C stopped a command that follows something (`run`): what it followed goes on. */
  interrupted: 130,
} as const;
