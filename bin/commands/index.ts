import type { Command } from 'commander';

/** Each command module adds itself here; the list is the CLI's table of contents. */
export function registerCommands(_program: Command): void {}
