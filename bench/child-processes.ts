/**
 * The benchmark's and the chaos qualification's child processes (`serve`, `simulate`, the stock
 * SDK server, a restarted supervisor), tracked so that a harness stopped by SIGTERM or SIGINT
 * takes them with it. Without this, stopping `npm run chaos` left its replicas and simulators
 * running (found after an aborted run: four orphans still renewing on PostgreSQL).
 * @module
 */
import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();

/** Tracks `child` until it exits. Returns it, for `const child = tracked(spawn(…))`. */
export function tracked<T extends ChildProcess>(child: T): T {
  if (child.exitCode === null && child.signalCode === null) {
    live.add(child);
    child.once('exit', () => live.delete(child));
  }
  return child;
}

/** How many tracked children have not exited yet. */
export const liveChildren = (): number => live.size;

/**
 * For an entry script: on SIGTERM or SIGINT, SIGKILL every tracked child (they hold no state
 * the run needs: it is being abandoned), then exit 128 + the signal's number, as the default
 * action would have.
 */
export function stopChildrenOnSignal(): void {
  const stop = (signal: NodeJS.Signals, code: number) => () => {
    for (const child of live) child.kill('SIGKILL');
    process.stderr.write(`stopped by ${signal}: ${live.size} child process(es) killed\n`);
    process.exit(128 + code);
  };
  process.once('SIGTERM', stop('SIGTERM', 15));
  process.once('SIGINT', stop('SIGINT', 2));
}
