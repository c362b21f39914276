/**
 * When `longshore dev` stops: on SIGTERM, SIGINT (Ctrl-C) and SIGHUP (terminal closed), and when
 * its parent goes away. The last one matters under `npm start`: npm hands SIGTERM to the shell it
 * ran the script in, and a shell that dies of it leaves `longshore dev` running with parent 1
 * (package.json's `exec` avoids that shell; this covers any other wrapper killed without passing the
 * signal on, including `kill -9` of npm). A second signal exits 1 at once.
 */

/** How often the parent is checked; a reparented process learns of it within this time. */
const PARENT_CHECK_MS = 250;

export function stopOnSignalsOrOrphaning(
  stop: (reason: string) => Promise<void>,
  onError: (err: Error) => void,
): void {
  let stopping = false;
  const begin = (reason: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    clearInterval(watcher);
    stop(reason).then(
      () => process.exit(0),
      (err: Error) => {
        onError(err);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => begin(signal));
  const parent = process.ppid;
  // process.ppid is read afresh on every access: a change means the parent died and we were
  // reparented (to PID 1 or a subreaper). Started by PID 1 itself there is nothing to watch.
  const watcher = setInterval(() => {
    if (parent !== 1 && process.ppid !== parent && !stopping) begin('parent process exited');
  }, PARENT_CHECK_MS);
  watcher.unref();
}
