#!/usr/bin/env node
/**
 * The `argus-supervisor` CLI. Thin: every command lives in bin/commands and delegates to the
 * server, services or simulator.
 */
import { Command } from 'commander';
import { readPackageVersion } from './package-info.js';
import { registerCommands } from './commands/index.js';

const program = new Command()
  .name('argus-supervisor')
  .description('Supervises long-running remote training campaigns over A2A.')
  .version(readPackageVersion());

await registerCommands(program);

await program.parseAsync(process.argv);
