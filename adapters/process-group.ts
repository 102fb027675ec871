/**
 * Children we start (the Argus MCP server, a Foreman run) lead their own process group
 * (`spawn(..., { detached: true })`), so stopping one stops whatever it started too: a
 * grandchild (a shell's `sleep`, a model CLI) would otherwise be reparented to PID 1 and
 * outlive both the child and us. Their stdio stays piped to us, so a child still sees EOF on
 * stdin and EPIPE on stdout if the supervisor itself dies.
 * @module
 */

/**
 * Sends `signal` to the whole group led by `pid`. False when no such group is left (ESRCH) or
 * the pid is unusable; never throws.
 * @example killProcessGroup(child.pid, 'SIGKILL')
 */
export function killProcessGroup(pid: number | null | undefined, signal: NodeJS.Signals): boolean {
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 1) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
