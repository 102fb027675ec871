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
  .version(readPackageVersion())
  // Set before the commands are added, so every command inherits both: a usage error anywhere
  // (an unknown command or option, a missing argument) is one `usage: <sentence>` line and exit 2.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'usage: ')) });

await registerCommands(program);

await program.parseAsync(process.argv);
