/**
 * A start-up failure an operator can act on: a stable code and one sentence, printed by the
 * CLI as `<code>: <sentence>` with exit code 2, never as a stack trace.
 * @module
 */
export class StartupFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StartupFailure';
  }
}
