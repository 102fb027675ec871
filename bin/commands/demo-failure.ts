/** A demo step that did not happen as narrated: the run prints one line and exits 1. */
export class DemoFailure extends Error {}
