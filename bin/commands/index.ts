import type { Command } from 'commander';
import { registerDemo } from './demo.js';
import { registerProbe } from './probe.js';
import { registerServe } from './serve.js';
import { registerSimulate } from './simulate.js';

/** Each command module adds itself here; the list is the CLI's table of contents. */
export function registerCommands(program: Command): void {
  registerServe(program);
  registerProbe(program);
  registerSimulate(program);
  registerDemo(program);
}
